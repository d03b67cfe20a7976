"""How far the seed alone moves a randomised learner's 10-fold accuracy, repetition by repetition.

Fits the learner at its class defaults with ``random_state`` = each of
``--seeds`` on the published folds of repetitions 0 .. ``--repeats`` - 1 of
each set, and prints per repetition the mean, minimum and maximum over the
seeds of the 10-fold accuracy, and with ``--line`` how many seeds reach
that line on repetition 0. It chooses nothing: it says how likely a
single-seed, single-repetition figure (one fit per fold of repetition 0) is to reach a
line, given the learner as shipped.

Usage:
    python benchmarks/reproduce_seed_spread.py gdbt-mi --datasets musk1 --seeds 0-19 --repeats 5 --line 85
    python benchmarks/reproduce_seed_spread.py mi-forest --datasets musk2 --seeds 0-19 --repeats 1 --line 83
"""

import argparse
import time

import numpy as np

from mil.datasets import load_dataset
from mil.evaluation import evaluate, table_splits
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier

LEARNERS = {"gdbt-mi": GDBTMIClassifier, "mi-forest": MIRandomForestClassifier}


def seeds(text):
    """"0-19" or "0,3,5" as a list of ints."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("learner", choices=sorted(LEARNERS))
    parser.add_argument("--datasets", nargs="+", default=["musk1", "musk2"])
    parser.add_argument("--seeds", type=seeds, default=list(range(10)))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--line", type=float, default=None, help="a line on repetition 0 (percent)")
    args = parser.parse_args()
    for name in args.datasets:
        data = load_dataset(name, as_bags=True)
        bags, y = data.bags, np.asarray(data.target)
        acc = np.zeros((len(args.seeds), args.repeats))
        t0 = time.perf_counter()
        for i, seed in enumerate(args.seeds):
            for rep in range(args.repeats):
                folds = evaluate(LEARNERS[args.learner](random_state=seed), bags, y, table_splits(data.folds[rep]))
                acc[i, rep] = 100.0 * folds["accuracy"].mean()  # the mean of the fold accuracies, as the README
            print(f"{name:9s} seed {seed:3d}: " + "  ".join(f"{a:5.1f}" for a in acc[i]), flush=True)
        print(f"{name}, {args.learner}, {len(args.seeds)} seeds ({time.perf_counter() - t0:.0f} s):")
        for rep in range(args.repeats):
            col = acc[:, rep]
            print(f"  rep {rep}: mean {col.mean():5.2f}  min {col.min():5.1f}  max {col.max():5.1f}")
        if args.repeats > 1:
            per_seed = acc.mean(axis=1)
            print(f"  {args.repeats} x 10 per seed: mean {per_seed.mean():5.2f}  min {per_seed.min():5.2f}"
                  f"  max {per_seed.max():5.2f}")
        if args.line is not None:
            print(f"  seeds reaching {args.line} on rep 0: {int(np.sum(acc[:, 0] >= args.line - 1e-9))}"
                  f" of {len(args.seeds)}")


if __name__ == "__main__":
    main()
