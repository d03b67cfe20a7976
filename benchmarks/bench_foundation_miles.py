"""MILES and mi-SVM on foundation-model-shaped bags: accuracy, AUC and CPU time of a fit.

The bags of :func:`mil.datasets.make_foundation_bags` (by default 200 bags of 500-1500 instances x 768
float32 features, intrinsic dimension 32, 2-10 % witness instances in the positive bags), 75 % of the
bags to train (a stratified split seeded by ``--seed``), the rest to test. Each ``--variant`` is a
registry learner with ``KEY=VALUE`` parameters (``mil.embedding.MILESClassifier`` by default);
every fit runs in this process with one BLAS thread and prints its CPU seconds (fit, then predict)
beside the test accuracy and AUC.

    nice -n 10 python benchmarks/bench_foundation_miles.py                       # MILES at its defaults
    python benchmarks/bench_foundation_miles.py --bag-sizes 100 300 --variant miles "miles n_concepts=200"
"""

import argparse
import os
import shlex
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _data import parse_params  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=200)
    parser.add_argument("--bag-sizes", type=int, nargs=2, default=(500, 1500))
    parser.add_argument("--features", type=int, default=768)
    parser.add_argument("--seed", type=int, default=0, help="data, split and learner seed")
    parser.add_argument("--variant", nargs="+", default=["miles"],
                        help='registry name and KEY=VALUE parameters, one quoted string per variant')
    args = parser.parse_args(argv)

    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split
    from threadpoolctl import threadpool_limits

    from mil._learners import make_learner
    from mil.datasets import make_foundation_bags

    data = make_foundation_bags(args.bags, n_features=args.features, bag_sizes=tuple(args.bag_sizes),
                                random_state=args.seed)
    X, y = data.bags, np.asarray(data.target)
    idx = np.arange(len(y))
    train, test = train_test_split(idx, train_size=0.75, stratify=y, random_state=args.seed)
    n_inst = sum(len(X[i]) for i in idx)
    print(f"{len(y)} bags, {n_inst} instances x {args.features} features; {len(train)} to train, {len(test)} to test")
    Xtr, Xte = [X[i] for i in train], [X[i] for i in test]
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant in args.variant:
            name, *items = shlex.split(variant)
            est = make_learner(name, seed=args.seed, **parse_params(items))
            t0 = time.process_time()
            est.fit(Xtr, y[train])
            fit = time.process_time() - t0
            t0 = time.process_time()
            proba = est.predict_proba(Xte)[:, 1]
            pred = est.classes_[(proba > 0.5).astype(int)]
            predict = time.process_time() - t0
            acc = float(np.mean(pred == y[test]))
            auc = float(roc_auc_score(y[test] == est.classes_[1], proba))
            print(f"  {variant:40s} fit {fit:7.1f} s  predict {predict:6.1f} s CPU  accuracy {acc:.3f}  AUC {auc:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
