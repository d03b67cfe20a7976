"""Bag distances for more bags than fit in memory, strip by strip into memmaps: time and peak memory.

A synthetic set of N bags (default 20,000; 1 to 9 instances each, mean 5;
16 features) against itself. The full minimal + maximal + average matrices
would need 3 * 8 * N^2 bytes (9.6 GB for N = 20,000); `hausdorff_all(...,
out=...)` writes them strip by strip into `np.lib.format.open_memmap` files,
so the process holds a few strips (``STRIP_BYTES`` each) at a time. Prints the
wall time, the peak resident memory of the process, and the size of the files.

    python benchmarks/bench_large_distances.py [--bags 20000] [--kinds minimal maximal]
        [--jobs 1] [--dir /tmp]

The files are deleted at the end.
"""

import argparse
import os
import resource
import tempfile
import time

import numpy as np

from mil import Bags
from mil._distance_engine import STRIP_BYTES
from mil.distances import hausdorff_all

from _data import AnonymousPeak  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def peak_rss_mb():
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    scale = 1 / 1024 if os.uname().sysname == "Linux" else 1 / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bags", type=int, default=20_000)
    ap.add_argument("--features", type=int, default=16)
    ap.add_argument("--kinds", nargs="+", default=["minimal", "maximal", "average"])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--dir", default=None, help="where the memmap files go (default: a temp dir)")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 10, size=args.bags)
    instances = rng.normal(size=(int(sizes.sum()), args.features))
    bags = Bags.from_instances(instances, np.repeat(np.arange(args.bags), sizes))
    n = bags.n_bags
    print(f"{n} bags, {bags.instances.shape[0]} instances, {args.features} features; "
          f"kinds {', '.join(args.kinds)}; {args.jobs} worker(s)")
    print(f"in memory the three full matrices would take {3 * 8 * n * n / 1e9:.1f} GB; "
          f"strips of at most {STRIP_BYTES / 2**20:.0f} MB")
    rss0 = peak_rss_mb()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        out = {k: np.lib.format.open_memmap(os.path.join(tmp, f"{k}.npy"), mode="w+",
                                            dtype=np.float64, shape=(n, n)) for k in args.kinds}
        anon0 = AnonymousPeak.now_mb()
        sampler = AnonymousPeak()
        sampler.start()
        t0 = time.perf_counter()
        hausdorff_all(bags, out=out, n_jobs=args.jobs)
        for arr in out.values():
            arr.flush()
        elapsed = time.perf_counter() - t0
        anon_peak = sampler.stop()
        on_disk = sum(os.path.getsize(os.path.join(tmp, f"{k}.npy")) for k in args.kinds)
        # Spot check against an in-memory computation on a few rows.
        rows = rng.choice(n, size=5, replace=False)
        check = hausdorff_all(bags[rows], bags)
        err = max(float(np.max(np.abs(out[k][rows] - check[k]) / np.maximum(check[k], 1e-300)))
                  for k in args.kinds)
        del out
    print(f"wall time {elapsed:.1f} s; files {on_disk / 1e9:.1f} GB")
    print(f"anonymous memory (RssAnon): {anon0:.0f} MB before, peak {anon_peak:.0f} MB during "
          f"(+{anon_peak - anon0:.0f} MB); peak resident set incl. cached file pages "
          f"{peak_rss_mb():.0f} MB (before: {rss0:.0f} MB)")
    print(f"spot check of 5 rows against an in-memory computation: max relative difference {err:.1e}")


if __name__ == "__main__":
    main()
