"""Peak memory of the bag encoders' fit + transform on foundation-model-shaped bags, against the data.

Bags from :func:`mil.datasets.make_foundation_bags` (default 200 bags of 500-1500 instances x 768
float32 features, about 577 MB, held in memory as one :class:`~mil.Bags`). Each encoder at its
defaults (seeded) runs ``fit`` then ``transform`` on every bag in its own subprocess with one
thread, which reports:

- ``traced``: the peak of the allocations made during fit + transform (tracemalloc; the data were
  made before the trace started), as a multiple of the data's bytes;
- ``rss``: the peak resident set of the process (``ru_maxrss``: the data, read once into memory
  from a file the parent wrote, and everything the fit and transform held at once) less the
  interpreter's before the data were read, as a multiple of the data's bytes (what
  ``/usr/bin/time`` would show, beyond the interpreter);
- the fit and transform times (tracemalloc slows them somewhat; ``--no-trace`` times them
  without it).

A run meets the bound when ``rss`` is at most 2 (the data once, and at most as much again for
the encoder). ``--baseline-src DIR`` runs the same encoders with another checkout's ``src`` on
``PYTHONPATH`` and prints the ratio of the peaks.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_encoder_memory.py [--bags 200] \\
        [--encoders vlad fv kme kme-rff swe] [--baseline-src /path/to/old/src]
"""

import argparse
import json
import os
import subprocess
import sys

ENCODERS = ("vlad", "fv", "kme", "kme-rff", "swe")

CHILD = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
from threadpoolctl import threadpool_limits
name, path, trace = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
from mil import Bags
from mil.embedding import (FisherVectorEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding,
                           VLADEmbedding)
offsets = np.load(path + ".offsets.npy")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
bags = Bags(np.array(np.load(path, mmap_mode="r")), offsets)  # the data in memory, read once
n_bags = bags.n_bags
data = bags.instances.nbytes
encoder = {"vlad": lambda: VLADEmbedding(random_state=0), "fv": lambda: FisherVectorEmbedding(random_state=0),
           "kme": lambda: KernelMeanEmbedding(random_state=0),
           "kme-rff": lambda: KernelMeanEmbedding(method="rff", random_state=0),
           "swe": lambda: SlicedWassersteinEmbedding(random_state=0)}[name]()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with threadpool_limits(1):
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    encoder.fit(bags)
    t1 = time.perf_counter()
    E = encoder.transform(bags)
    t2 = time.perf_counter()
    traced = tracemalloc.get_traced_memory()[1] if trace else float("nan")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"encoder": name, "bags": n_bags, "instances": int(bags.n_instances),
                  "data_mb": data / 2**20, "traced": traced / data, "rss": (after - base) * 1024 / data,
                  "rss_before_fit": (before - base) * 1024 / data, "fit_s": t1 - t0, "transform_s": t2 - t1,
                  "encoding_mb": E.nbytes / 2**20}))
"""


def run(name, path, trace, src=None):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if src:
        env["PYTHONPATH"] = src
    out = subprocess.run([sys.executable, "-c", CHILD, name, path, "1" if trace else "0"], env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=200)
    parser.add_argument("--encoders", nargs="+", default=list(ENCODERS), choices=ENCODERS)
    parser.add_argument("--no-trace", action="store_true", help="time without tracemalloc (no traced peak)")
    parser.add_argument("--baseline-src", help="another checkout's src directory, run the same way")
    args = parser.parse_args(argv)
    import tempfile

    import numpy as np

    from mil.datasets import make_foundation_bags

    tmp = tempfile.mkdtemp(prefix="mil-encoder-memory-")
    path = os.path.join(tmp, "instances.npy")
    bags = make_foundation_bags(args.bags, random_state=0, memmap=path).bags
    np.save(path + ".offsets.npy", bags.offsets)
    del bags
    print(f"{'encoder':8} {'data MB':>8} {'traced':>7} {'rss':>6} {'fit s':>7} {'transform s':>11}  bound (rss <= 2)"
          + ("   baseline rss  ratio" if args.baseline_src else ""), flush=True)
    for name in args.encoders:
        r = run(name, path, not args.no_trace)
        line = (f"{name:8} {r['data_mb']:8.0f} {r['traced']:6.2f}x {r['rss']:5.2f}x {r['fit_s']:7.1f} "
                f"{r['transform_s']:11.1f}  {'ok' if r['rss'] <= 2 else 'EXCEEDED'}")
        if args.baseline_src:
            b = run(name, path, not args.no_trace, args.baseline_src)
            line += f"   {b['rss']:11.2f}x  {b['rss'] / r['rss']:5.2f}"
        print(line, flush=True)
        print(json.dumps(r), file=sys.stderr, flush=True)
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
