"""One instance matrix filled block by block: in memory, or a ``.npy`` file returned as a read-only memory map.

The file is written with ordinary (positioned) writes, not through a
writable memory map: pages written through a map stay in the writer's
resident set until it is unmapped, so the process would appear to hold the
whole matrix; written with ``os.pwrite`` they sit in the page cache, which
the system reclaims as it needs.
"""

import os
import tempfile

import numpy as np

__all__ = ["InstanceSink"]


class InstanceSink:
    """Rows of an (n_rows, n_features) matrix written in any order, then read as one array.

    Parameters
    ----------
    n_rows, n_features : int
    dtype : numpy dtype
    memmap : None, True or path-like
        None: an in-memory array. A path: a ``.npy`` file there (created or
        overwritten). True: a temporary ``.npy`` file, removed from the
        folder as soon as it is mapped (POSIX; the space is freed when the
        array is garbage-collected), else when the process ends.
    """

    def __init__(self, n_rows, n_features, dtype, memmap=None):
        self.shape, self.dtype = (int(n_rows), int(n_features)), np.dtype(dtype)
        self.path, self._temporary, self._fd, self._array = None, False, None, None
        if memmap is None or memmap is False:
            self._array = np.empty(self.shape, dtype=self.dtype)
            return
        if memmap is True:
            fd, self.path = tempfile.mkstemp(prefix="mil-instances-", suffix=".npy")
            os.close(fd)
            self._temporary = True
        else:
            self.path = os.fspath(memmap)
        with open(self.path, "wb") as fh:
            np.lib.format.write_array_header_2_0(
                fh, {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
                     "shape": self.shape})
            self._header = fh.tell()
            fh.truncate(self._header + self.shape[0] * self.shape[1] * self.dtype.itemsize)
        self._fd = os.open(self.path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
        self._row_bytes = self.shape[1] * self.dtype.itemsize

    def put(self, start, block):
        """Write `block` (2-D) at rows ``start, start + 1, ...``."""
        block = np.ascontiguousarray(block, dtype=self.dtype)
        if self._array is not None:
            self._array[start:start + len(block)] = block
            return
        view = memoryview(block).cast("B")
        offset, done = self._header + int(start) * self._row_bytes, 0
        while done < len(view):
            done += os.pwrite(self._fd, view[done:], offset + done)

    def put_rows(self, rows, block):
        """Write row i of `block` at row ``rows[i]`` (any order; runs of consecutive rows go in one write)."""
        rows = np.asarray(rows, dtype=np.intp)
        if self._array is not None:
            self._array[rows] = block
            return
        if len(rows) == 0:
            return
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        bounds = np.concatenate([[0], breaks, [len(rows)]])
        for a, b in zip(bounds[:-1], bounds[1:]):
            self.put(rows[a], block[a:b])

    def finish(self):
        """The filled matrix: the in-memory array, or a read-only memory map of the file."""
        if self._array is not None:
            return self._array
        os.close(self._fd)
        self._fd = None
        mapped = np.load(self.path, mmap_mode="r")
        if self._temporary and os.name == "posix":
            os.unlink(self.path)
        return mapped

    def discard(self):
        """Close and remove the file after a failure (nothing for an in-memory array)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self.path is not None and os.path.exists(self.path):
            os.unlink(self.path)
