"""Above the "auto" threshold (10,000 instances) the histogram search is as accurate as the exact one.

Synthetic bags of ``bench_tree_scale.py`` (10 to 30 instances, 64 float32 standard normal features)
with a concept that multi-instance trees can learn: a positive bag's first instance is standard
normal but for features 0 and 1, shifted by ``--shift`` (the scale benchmark's concept, 8 features
near 1.5, is beyond them: the trees fit it at chance, both searches alike). Each
learner is fitted with ``splitter="exact"`` and ``splitter="hist"`` on a training set of the given
size (data seed 0) and scored on an independent test set of half as many instances (data seed 1);
nothing is chosen on the test set. GDBT-MI (randomised: ``subsample``, ``max_features``) runs with
the seeds 0, 1 and 2; C4.5-MI once. Printed: accuracy and ROC AUC in percent (the mean over the
seeds and their range), and the fit times.

    python benchmarks/studies/study_hist_threshold.py --sizes 20000 80000 --rounds 100
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the scale benchmark's data

from bench_tree_scale import make_data  # noqa: E402


def bags_of(n, features, bag_size, seed, shift):
    from mil.bags import Bags

    X, offsets, y = make_data(n, features, bag_size, seed=seed)
    first = offsets[:-1][y == 1]  # the concept instance of every positive bag, redrawn
    rng = np.random.default_rng(100 + seed)
    X[first, :8] = rng.standard_normal((first.size, 8), dtype=np.float32)
    X[first, :2] += np.float32(shift)
    return Bags(X, offsets), y


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[20_000, 80_000])
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--bag-size", type=int, default=20)
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--leaves", type=int, default=31)
    p.add_argument("--shift", type=float, default=2.5)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = p.parse_args()

    from mil.ensemble import GDBTMIClassifier
    from mil.tree import C45MIClassifier

    for n in args.sizes:
        train, y = bags_of(n, args.features, args.bag_size, 0, args.shift)
        test, y_test = bags_of(n // 2, args.features, args.bag_size, 1, args.shift)
        learners = {
            "GDBT-MI": lambda s, seed: GDBTMIClassifier(n_estimators=args.rounds, max_leaf_nodes=args.leaves,
                                                        splitter=s, random_state=seed),
            "C4.5-MI": lambda s, seed: C45MIClassifier(splitter=s),
        }
        for name, make in learners.items():
            seeds = args.seeds if name == "GDBT-MI" else [0]
            for splitter in ("exact", "hist"):
                acc, auc, secs = [], [], []
                for seed in seeds:
                    t0 = time.perf_counter()
                    model = make(splitter, seed).fit(train, y)
                    secs.append(time.perf_counter() - t0)
                    acc.append(100 * np.mean(model.predict(test) == y_test))
                    auc.append(100 * roc_auc_score(y_test, model.predict_proba(test)[:, 1]))
                spread = f" [{min(acc):.1f}-{max(acc):.1f}]" if len(seeds) > 1 else ""
                print(f"{n:>7d} {name:8s} {splitter:5s}: accuracy {np.mean(acc):5.1f}{spread}, "
                      f"AUC {np.mean(auc):5.1f}, fit {np.mean(secs):6.1f} s  (seeds {seeds})", flush=True)


if __name__ == "__main__":
    main()
