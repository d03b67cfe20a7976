"""A minimal terminal progress bar (no dependency): on only when stderr is a terminal."""

import sys
import time


class Progress:
    """Counts steps and redraws one line on stderr; silent when disabled.

    Parameters
    ----------
    total : int
    label : str
    enabled : bool or None, default=None
        None means: only when stderr is a terminal.
    """

    def __init__(self, total, label="", enabled=None, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total, self.label, self.done, self.start = max(int(total), 1), label, 0, time.perf_counter()

    def set_label(self, label):
        self.label = label
        self._draw()

    def __call__(self, steps=1):
        self.done += steps
        self._draw()

    def _draw(self):
        if not self.enabled:
            return
        frac = min(self.done / self.total, 1.0)
        bar = "#" * int(frac * 30)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r{self.label[:40]:<40} [{bar:<30}] {self.done}/{self.total} {elapsed:6.1f}s")
        self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
