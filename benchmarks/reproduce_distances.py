"""Reproduce the distance learners' table: Citation-KNN and Bag-KNN x five Hausdorff distances.

The integrated-Hausdorff paper's protocol: 10-fold CV on the
shipped folds (repetition 0), parameters chosen by a stratified 5-fold CV
on the training bags (references / k in {1, 3, 5, 7}, citers = references
+ 2, sigma in {0.1, ..., 100} for the integrated distance). The logic is
in :func:`mil.model_selection.nested_cv`; this script only loops and prints.

    python benchmarks/reproduce_distances.py [--scale standard|minmax|none] [--alpha nca|cv]
                                             [--sets musk1 fox ...] [--n-jobs 2]
"""

import argparse
import time

import numpy as np

from mil import datasets
from mil.distances import KINDS
from mil.model_selection import nested_cv, paper_grid
from mil.neighbors import BagKNNClassifier, CitationKNNClassifier

SETS = ("musk1", "musk2", "elephant", "fox", "tiger")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="none", choices=["standard", "minmax", "none"])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--learners", nargs="+", default=["citation", "bagknn"],
                        choices=["citation", "bagknn"])
    parser.add_argument("--metrics", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--alpha", default="nca", choices=["nca", "cv"],
                        help="integrated distance: alpha by the NCA objective (paper) or by the inner CV")
    parser.add_argument("--n-jobs", type=int, default=None)
    args = parser.parse_args(argv)
    scale = None if args.scale == "none" else args.scale
    makers = {"citation": lambda m: CitationKNNClassifier(metric=m, scale=scale),
              "bagknn": lambda m: BagKNNClassifier(metric=m, scale=scale)}
    t_all = time.perf_counter()
    rows = []
    for name in args.sets:
        data = getattr(datasets, f"load_{name}")()
        cache = {}  # distance matrices and alphas shared by the ten learners on this set
        for learner in args.learners:
            for metric in args.metrics:
                est = makers[learner](metric)
                res = nested_cv(est, paper_grid(est, alpha=args.alpha), data.data, data.target, data.folds[0],
                                inner_cv=5, n_jobs=args.n_jobs, random_state=0, cache=cache)
                alphas = [a for a in res.alphas if a is not None]
                extra = f"  alpha {np.mean(alphas):.2f}+-{np.std(alphas):.2f}" if alphas else ""
                rows.append((name, learner, metric, 100 * res.mean_score))
                print(f"{name:9s} {learner:8s} {metric:10s} {100 * res.mean_score:5.1f} %  "
                      f"({res.total_time:5.2f} s, distances {res.distance_time:4.2f} s){extra}", flush=True)
    total = time.perf_counter() - t_all
    print(f"\nscale={args.scale}, alpha={args.alpha}; total {total:.1f} s")
    print("\n| learner | distance | " + " | ".join(args.sets) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in args.sets) + " |")
    for learner in args.learners:
        for metric in args.metrics:
            cells = [f"{acc:.1f}" for (n, lr, m, acc) in rows if lr == learner and m == metric]
            print(f"| {learner} | {metric} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
