"""Peak memory of mil.datasets.load_bag_files on a folder of per-bag .npy / .h5 files, in memory and memory-mapped.

Writes a folder of per-bag feature files (by default 100 bags x 1,000
instances x 768 float32 features, 293 MB, as a foundation-model extractor
writes them; ``.npy`` and CLAM-style ``.h5`` with a ``features`` dataset)
and a labels.csv, then reads it in a fresh child process per reading
(peak resident memory is per process): the peak of the child's anonymous
memory (sampled every 5 ms from /proc/self/status: the memory the process
holds), its ratio to the data's size, the growth of its maximum resident
set (which also counts the pages of a memory-mapped file the kernel has
read in, shared with the page cache and dropped under memory pressure),
and the time.
The baseline is what a user writes by hand, ``np.concatenate`` of every
bag loaded with ``np.load`` / h5py:

    python benchmarks/bench_bag_files.py [--bags 100] [--instances 1000] [--features 768] [--formats npy,h5]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CHILD = r"""
import json, os, resource, sys, threading, time
import numpy as np, h5py
from mil.datasets import load_bag_files
folder, fmt, how = sys.argv[1], sys.argv[2], sys.argv[3]

def anon_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return 0.0

anon = {"peak": 0.0, "run": True}
def sample():
    while anon["run"]:
        anon["peak"] = max(anon["peak"], anon_mb())
        time.sleep(0.005)
anon0 = anon_mb()
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
if how == "concatenate":
    names = sorted(n for n in os.listdir(folder) if n.endswith("." + fmt))
    if fmt == "npy":
        parts = [np.load(os.path.join(folder, n)) for n in names]
    else:
        parts = []
        for n in names:
            with h5py.File(os.path.join(folder, n), "r") as f:
                parts.append(f["features"][:])
    X = np.concatenate(parts)
    n = X.shape[0]
else:
    d = load_bag_files(folder, memmap={"memory": None, "memmap": True}[how])
    n = d.bags.n_instances
seconds = time.perf_counter() - t
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
anon["run"] = False
sampler.join()
print(json.dumps({"seconds": seconds, "growth_mb": (rss1 - rss0) / 1024, "anon_mb": anon["peak"] - anon0, "rows": n}))
"""


def write_folder(root, fmt, n_bags, n_instances, n_features):
    import h5py

    folder = os.path.join(root, fmt)
    os.makedirs(folder)
    rng = np.random.default_rng(0)
    with open(os.path.join(folder, "labels.csv"), "w") as fh:
        fh.write("slide_id,label\n" + "".join(f"slide_{b:04d},{b % 2}\n" for b in range(n_bags)))
    for b in range(n_bags):
        bag = rng.standard_normal((n_instances, n_features), dtype=np.float32)
        path = os.path.join(folder, f"slide_{b:04d}.{fmt}")
        if fmt == "npy":
            np.save(path, bag)
        else:
            with h5py.File(path, "w") as f:
                f.create_dataset("features", data=bag)
                f.create_dataset("coords", data=np.zeros((n_instances, 2), dtype=np.int32))
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=100)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--features", type=int, default=768)
    parser.add_argument("--formats", default="npy,h5")
    args = parser.parse_args()
    size_mb = args.bags * args.instances * args.features * 4 / 2**20
    print(f"{args.bags} bags x {args.instances} instances x {args.features} float32 features: {size_mb:.0f} MB")
    with tempfile.TemporaryDirectory() as root:
        for fmt in args.formats.split(","):
            folder = write_folder(root, fmt, args.bags, args.instances, args.features)
            for how in ("concatenate", "memory", "memmap"):
                out = subprocess.run([sys.executable, "-c", CHILD, folder, fmt, how], capture_output=True, text=True,
                                     check=True)
                res = json.loads(out.stdout.strip().splitlines()[-1])
                label = {"concatenate": "np.concatenate (baseline)", "memory": "load_bag_files()",
                         "memmap": "load_bag_files(memmap=True)"}[how]
                print(f"  .{fmt:3s} {label:30s} anonymous peak {res['anon_mb']:7.1f} MB = "
                      f"{res['anon_mb'] / size_mb:5.2f}x the data; resident peak (file pages included) "
                      f"{res['growth_mb']:7.1f} MB; {res['seconds']:6.2f} s")


if __name__ == "__main__":
    main()
