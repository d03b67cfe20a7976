"""Peak memory and time of mil.datasets.load_csv against pandas.read_csv on the same long CSV file (ratios).

Writes a long CSV table (bag id, label, then numeric features with six
significant digits: by default 40,000 instances x 166 features, about 56 MB,
the size of a Musk-like set at 40k instances), then reads it with each
reader in a fresh child process (peak resident memory is per process),
alternating the readers and repeating: the growth of the child's maximum
resident set during the read (everything: the parser, its buffers, the
bags), and the wall time. Prints each run and the median ratios of
load_csv against pandas.read_csv; ``--fallback`` also times the
row-by-row reader used without pyarrow:

    OMP_NUM_THREADS=1 python benchmarks/bench_csv_reader.py [--rows 40000] [--features 166] [--repeats 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

CHILD = r"""
import json, resource, sys, time
reader, path = sys.argv[1], sys.argv[2]
import numpy as np, pandas as pd
import pyarrow, pyarrow.csv
import mil.datasets
from mil.datasets import _table
if reader == "fallback":
    _table._read_with_arrow = lambda *a: None
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
if reader == "pandas":
    out = pd.read_csv(path)
    n = len(out)
else:
    out = mil.datasets.load_csv(path)
    n = out.bags.n_instances
seconds = time.perf_counter() - t
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "growth_mb": (rss1 - rss0) / 1024, "rows": n}))
"""


def write_table(path, n_rows, n_features, seed=0):
    rng = np.random.default_rng(seed)
    bag = np.repeat(np.arange(n_rows // 10 + 1), 10)[:n_rows]
    with open(path, "w") as fh:
        fh.write("bag,label," + ",".join(f"f{j}" for j in range(n_features)) + "\n")
        for lo in range(0, n_rows, 5000):
            X = rng.normal(size=(min(5000, n_rows - lo), n_features))
            for i, row in enumerate(X):
                b = bag[lo + i]
                fh.write(f"mol_{b},{b % 2}," + ",".join(f"{v:.6g}" for v in row) + "\n")


def run(reader, path):
    out = subprocess.run([sys.executable, "-c", CHILD, reader, path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40000)
    parser.add_argument("--features", type=int, default=166)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fallback", action="store_true", help="also time the row-by-row reader")
    args = parser.parse_args()
    readers = ["pandas", "load_csv"] + (["fallback"] if args.fallback else [])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "long.csv")
        write_table(path, args.rows, args.features)
        size = os.path.getsize(path) / 2**20
        print(f"{args.rows} rows x {args.features} features: {size:.1f} MB of CSV, "
              f"{args.rows * args.features * 8 / 2**20:.1f} MB as float64")
        results = {r: [] for r in readers}
        for rep in range(args.repeats):
            for reader in readers:
                res = run(reader, path)
                results[reader].append(res)
                print(f"  run {rep + 1} {reader:9s} {res['seconds']:6.2f} s  peak growth {res['growth_mb']:7.1f} MB")
    base_mem = statistics.median(r["growth_mb"] for r in results["pandas"])
    base_t = statistics.median(r["seconds"] for r in results["pandas"])
    for reader in readers[1:]:
        mem = statistics.median(r["growth_mb"] for r in results[reader])
        sec = statistics.median(r["seconds"] for r in results[reader])
        print(f"{reader}: peak memory {mem:.1f} MB = {mem / base_mem:.2f}x pandas.read_csv ({base_mem:.1f} MB); "
              f"time {sec:.2f} s = {sec / base_t:.2f}x pandas ({base_t:.2f} s)")


if __name__ == "__main__":
    main()
