"""Citation-KNN with the integrated distance: ways of choosing alpha against minimal and maximal.

Runs Citation-KNN under the paper's nested protocol (shipped folds, row 0;
inner stratified 5-fold) with variants of how alpha is chosen, every
choice made on training folds only:

- paper:        NCA objective, absolute sigma grid {0.1..100}, golden-section search;
- grid-golden:  NCA objective, absolute sigma grid, coarse grid then golden section;
- median:       NCA with sigma relative to the median training distance,
                sigma in {0.02..2} x median, golden section;
- median-grid:  both of the above;
- cv-alpha:     alpha chosen with references by the inner CV (alpha in 0, 0.1, ..., 1), no NCA;
plus the minimal and maximal distances for comparison.

    python benchmarks/studies/study_integrated_distance.py [--scale none|standard] [--learner citation|bagknn]
"""

import argparse
import time

import numpy as np

from mil import datasets
from mil.model_selection import nested_cv, paper_grid
from mil.neighbors import BagKNNClassifier, CitationKNNClassifier

SETS = ("musk1", "musk2", "elephant", "fox", "tiger")
RELATIVE = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


def variants(make):
    out = {}
    out["minimal"] = (make(metric="minimal"), None)
    out["maximal"] = (make(metric="maximal"), None)
    out["paper"] = (make(metric="integrated"), None)
    out["grid-golden"] = (make(metric="integrated", alpha_search="grid-golden"), None)
    out["median"] = (make(metric="integrated", sigma_scale="median"), RELATIVE)
    out["median-grid"] = (make(metric="integrated", sigma_scale="median", alpha_search="grid-golden"), RELATIVE)
    cv = make(metric="integrated")
    out["cv-alpha"] = (cv, paper_grid(cv, alpha="cv"))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="none", choices=["none", "standard"])
    parser.add_argument("--learner", default="citation", choices=["citation", "bagknn"])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    args = parser.parse_args(argv)
    scale = None if args.scale == "none" else args.scale
    cls = CitationKNNClassifier if args.learner == "citation" else BagKNNClassifier
    table = {}
    for name in args.sets:
        data = getattr(datasets, f"load_{name}")()
        cache = {}
        for vname, (est, grid) in variants(lambda **kw: cls(scale=scale, **kw)).items():
            if grid is None:
                grid = paper_grid(est)
            elif not isinstance(grid[0] if isinstance(grid, list) else grid, dict):
                grid = paper_grid(est, sigmas=grid)
            t0 = time.perf_counter()
            res = nested_cv(est, grid, data.data, data.target, data.folds[0], cache=cache)
            table[name, vname] = 100 * res.mean_score
            alphas = [a for a in res.alphas if a is not None]
            extra = f" alpha {np.mean(alphas):.2f}+-{np.std(alphas):.2f}" if alphas else ""
            print(f"{name:9s} {vname:12s} {100 * res.mean_score:5.1f}  ({time.perf_counter() - t0:5.1f} s){extra}",
                  flush=True)
    names = list(variants(lambda **kw: cls(**kw)))
    print(f"\n{args.learner}, scale={args.scale}\n| variant | " + " | ".join(args.sets) + " | mean |")
    print("| --- |" + " --- |" * (len(args.sets) + 1))
    for v in names:
        vals = [table[s, v] for s in args.sets]
        print(f"| {v} | " + " | ".join(f"{x:.1f}" for x in vals) + f" | {np.mean(vals):.1f} |")


if __name__ == "__main__":
    main()
