"""GDBT-MI's trees grown on bags ("mi") or on instances ("instance") as the bags grow: accuracy / AUC and fit time.

On foundation-model shaped bags (:func:`mil.datasets.make_foundation_bags`:
768 float32 features of intrinsic dimension 32, 2-10 % witnesses in the
positive bags) of a range of sizes, 200 bags per set, the first 75 % of the
bags (in the generator's random label order) to train and the rest to test,
as ``benchmarks/bench_foundation.py``. Each (size, seed) draws its own data
(``random_state=seed``) and seeds the learner with the same seed. Prints one
line per fit (``--json`` also appends them to a file) and a table of the
means over the seeds per size and split. ``split="auto"`` picks "instance"
above ``mil.ensemble._gdbt.AUTO_INSTANCE_SPLIT`` instances per bag on
average; this study measures where the two trees cross.

Usage: python benchmarks/study_gdbt_bag_size.py [--sizes 5-15 20-40 50-100 100-300 500-1500]
       [--seeds 0 1 2] [--splits mi instance] [--param key=value ...] [--json FILE]
"""

import argparse
import json
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from mil.datasets import make_foundation_bags
from mil.ensemble import GDBTMIClassifier

from _data import parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def run(size, seed, split, params):
    lo, hi = (int(v) for v in size.split("-"))
    data = make_foundation_bags(200, bag_sizes=(lo, hi), random_state=seed)
    n_train = 150
    train, test = data.bags.subset(np.arange(n_train)), data.bags.subset(np.arange(n_train, 200))
    clf = GDBTMIClassifier(split=split, random_state=seed, **params)
    t0 = time.process_time()
    clf.fit(train, data.target[:n_train])
    fit = time.process_time() - t0
    p = clf.predict_proba(test)[:, 1]
    y = data.target[n_train:]
    return dict(size=size, seed=seed, split=split, params=params, accuracy=float(np.mean((p > 0.5) == y)),
                auc=float(roc_auc_score(y, p)), fit_cpu=round(fit, 1), instances=int(train.n_instances))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["5-15", "20-40", "50-100", "100-300", "500-1500"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--splits", nargs="+", default=["mi", "instance"])
    parser.add_argument("--param", action="append", default=[])
    parser.add_argument("--json")
    args = parser.parse_args()
    params = parse_params(args.param)
    rows = []
    for size in args.sizes:
        for seed in args.seeds:
            for split in args.splits:
                row = run(size, seed, split, params)
                rows.append(row)
                print(json.dumps(row), flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(row) + "\n")
    print(f"\n{'bag sizes':>10} {'split':>9} {'accuracy':>9} {'AUC':>6} {'fit CPU s':>10}  (means over seeds "
          f"{' '.join(map(str, args.seeds))})")
    for size in args.sizes:
        for split in args.splits:
            sel = [r for r in rows if r["size"] == size and r["split"] == split]
            print(f"{size:>10} {split:>9} {np.mean([r['accuracy'] for r in sel]):9.3f} "
                  f"{np.mean([r['auc'] for r in sel]):6.3f} {np.mean([r['fit_cpu'] for r in sel]):10.1f}")


if __name__ == "__main__":
    main()
