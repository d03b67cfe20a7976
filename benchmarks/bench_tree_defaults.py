"""GDBT-MI at its default split search ("auto": histograms above 10,000 instances) fits within HistGradientBoosting's time.

The synthetic bags of ``bench_tree_scale.py`` (10 to 30 instances, 64 float32 features), one thread.
For each size: GDBT-MI with ``splitter`` left at its default, ``max_leaf_nodes=31`` and the given
rounds, against ``HistGradientBoostingClassifier(max_iter=rounds, max_leaf_nodes=31,
early_stopping=False)`` on the instance table; the fits alternate ``--repeat`` times in this process,
and the row gives the median times and the median of the per-repetition ratios. Then each learner
fits once more in its own subprocess for its peak resident memory (data included). The last lines
give the growth of time and memory per 4x data.

    python benchmarks/bench_tree_defaults.py --sizes 20000 80000 320000 1280000 --rounds 100 --repeat 3
    python benchmarks/bench_tree_defaults.py --sizes 20000 80000 320000 1280000 --rounds 100 --memory-only
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_tree_scale import child  # noqa: E402  (the same data and fits as the scale benchmark)

LEARNERS = ("hgb", "gdbt-auto")  # "gdbt-auto": GDBTMIClassifier(splitter="auto"), its default


def peak_memory(learner, n, args):
    """The peak resident memory (MB) of one fit in a new process, data included.

    The fit runs under /usr/bin/time: a process forked straight from this one would start with this
    process's high-water mark (Linux keeps ``ru_maxrss`` across fork and exec), which the fits made
    here have raised.
    """
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               BENCH_TREE_THREADS="1")
    cmd = ["/usr/bin/time", "-f", "%M", sys.executable, str(HERE / "bench_tree_scale.py"), "--child", learner,
           str(n), str(args.features), str(args.bag_size), str(args.rounds), "0", str(args.leaves), "0", "0"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["peak_mb"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[20_000, 80_000, 320_000, 1_280_000])
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--bag-size", type=int, default=20)
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--leaves", type=int, default=31)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-memory", action="store_true", help="skip the subprocess fits for peak memory")
    p.add_argument("--memory-only", action="store_true", help="only the subprocess fits for peak memory")
    args = p.parse_args()
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", BENCH_TREE_THREADS="1")

    from mil.ensemble import GDBTMIClassifier
    from mil.tree._rows import AUTO_HIST_INSTANCES

    assert GDBTMIClassifier().splitter == "auto"
    rows = []
    for n in args.sizes:
        if args.memory_only:
            row = dict(n=n, hgb_mb=peak_memory("hgb", n, args), gdbt_mb=peak_memory("gdbt-auto", n, args))
            rows.append(row)
            print(f"{n:>9d} instances: peak memory HGB {row['hgb_mb']:.0f} MB, GDBT-MI {row['gdbt_mb']:.0f} MB",
                  flush=True)
            continue
        runs = {learner: [] for learner in LEARNERS}
        for _ in range(args.repeat):
            for learner in LEARNERS:
                runs[learner].append(child(learner, n, args.features, args.bag_size, args.rounds, 0, args.leaves))
        hgb = [r["seconds"] for r in runs["hgb"]]
        gdbt = [r["seconds"] for r in runs["gdbt-auto"]]
        row = dict(n=n, search="hist" if n > AUTO_HIST_INSTANCES else "exact", hgb=float(np.median(hgb)),
                   gdbt=float(np.median(gdbt)), ratio=float(np.median(np.array(gdbt) / np.array(hgb))),
                   ratios=[round(g / h, 2) for g, h in zip(gdbt, hgb)],
                   load=float(np.median([r["load"] for rs in runs.values() for r in rs])))
        if not args.no_memory:
            row.update(hgb_mb=peak_memory("hgb", n, args), gdbt_mb=peak_memory("gdbt-auto", n, args))
        rows.append(row)
        mem = (f"  peak memory: HGB {row['hgb_mb']:.0f} MB, GDBT-MI {row['gdbt_mb']:.0f} MB"
               if "gdbt_mb" in row else "")
        print(f"{n:>9d} instances (GDBT-MI searches {row['search']}): HGB {row['hgb']:.2f} s, GDBT-MI "
              f"{row['gdbt']:.2f} s, ratio {row['ratio']:.2f}x {row['ratios']}{mem}  [load {row['load']:.1f}]",
              flush=True)
    for a, b in zip(rows, rows[1:]):
        grow = f"x{b['n'] / a['n']:g} data:"
        if "gdbt" in a:
            grow += f" GDBT-MI time x{b['gdbt'] / a['gdbt']:.2f}, HGB x{b['hgb'] / a['hgb']:.2f};"
        if "gdbt_mb" in a:
            grow += f" GDBT-MI memory x{b['gdbt_mb'] / a['gdbt_mb']:.2f}, HGB x{b['hgb_mb'] / a['hgb_mb']:.2f}"
        print(f"{a['n']} -> {b['n']}: {grow}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
