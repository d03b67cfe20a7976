"""mi-SVM's approximate kernel (Nystroem + a linear SVM): a default fit on 200 bags x 24 x 10 in under 5 s, against the exact RBF fit.

The 200-bag set of the default job (``benchmarks/studies/study_default_job.py``: 5 to 40 instances
per bag, about 24 on average, 10 features; positive bags hold 1 to 3 witnesses near a concept),
all 200 bags (4,702 instances). ``miSVMClassifier`` at its defaults
(inner 3-fold CV over 4 bandwidths x 3 C, then the final fit: 37 alternating fits) once with the
exact RBF kernel (``SVC`` on the precomputed kernel, the path below ``max_exact`` training
instances; ``max_exact`` raised to the set's 4,702 instances) as the baseline, then with ``max_exact=0`` (the path above it: Nystroem features with
``n_components`` landmarks and liblinear) for each ``--components``; process CPU seconds of each
fit (one BLAS thread), the ratio to the exact fit, and the training accuracy (the five-set accuracy
of both paths is on docs/results/svm.rst).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_mi_svm_approx.py --components 64 100 500
"""

import argparse
import os
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "studies"))

from study_default_job import write_csv  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--components", nargs="+", type=int, default=[64, 100, 500])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    from threadpoolctl import threadpool_limits

    from mil.datasets import load_csv
    from mil.svm import miSVMClassifier

    with tempfile.TemporaryDirectory() as tmp:
        data = load_csv(write_csv(os.path.join(tmp, "bags200.csv")))
    bags, y = data.bags, data.target
    print(f"200-bag set: {bags.n_bags} bags, {bags.instances.shape[0]} instances x {bags.n_features} features")
    rows = [("exact RBF (baseline)", {"max_exact": bags.instances.shape[0]})] + [(f"Nystroem, {c} components", {"max_exact": 0, "n_components": c})
                                             for c in args.components]
    base = None
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, params in rows:
            t0 = time.process_time()
            clf = miSVMClassifier(random_state=args.seed, **params).fit(bags, y)
            seconds = time.process_time() - t0
            base = seconds if base is None else base
            acc = float(np.mean(clf.predict(bags) == y))
            print(f"  {label:28s} fit {seconds:6.2f} s CPU  x exact {seconds / base:5.2f}  "
                  f"training accuracy {acc:.2f}", flush=True)


if __name__ == "__main__":
    main()
