"""RIPPER-MI fits at least 20x faster than wittgenstein's RIPPER (Musk2 instances, digits, a small set).

1. Single-instance bags: the Musk2 instance matrix (6598 rows, 166 features) with
   each bag's label copied to its instances, one instance per bag. Fit time of
   ``wittgenstein.RIPPER`` divided by that of ``RipperMIClassifier`` (claim >= 20),
   with its defaults (rules for both classes) and with ``rule_order="ordered"``
   (rules for the positive class only, as wittgenstein), and the training accuracies.
2. Multi-class: scikit-learn's digits (1797 one-instance bags, 64 features, 10
   classes), ``RipperMIClassifier`` (ordered and unordered rule sets) against
   ``OneVsRestClassifier`` over ``wittgenstein.RIPPER`` (claim >= 20).
3. RIPPER-MI on the Musk2 bags (102 bags), compiled and pure-Python kernels.
4. A small single-instance set (``--small``): scikit-learn's breast cancer replicated four
   times with 1 % multiplicative jitter, 70 % of it (1,593 rows, 30 features) as a list of
   one-instance bags, the way a user passes them (validation included): fit time of
   ``wittgenstein.RIPPER`` divided by ours (claim >= 20), and our time spent validating.

Times are CPU seconds of this process (``time.process_time``; both learners are
single-threaded here, run with ``OPENBLAS_NUM_THREADS=1``), so the ratios hold on a
machine shared with other jobs; wall-clock seconds are printed next to them.

    python benchmarks/bench_rules.py [--repeat 3] [--rows N] [--skip-musk2-instances] [--skip-digits]
                                     [--skip-python-bags] [--small]
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from sklearn.base import BaseEstimator, ClassifierMixin

from mil import Bags, RipperMIClassifier
from mil._core import compiled_available, use_backend


from _data import load_musk2  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def best_time(fn, repeat):
    """Smallest CPU time of `repeat` calls (seconds), and the last result."""
    times = []
    for _ in range(repeat):
        t0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.process_time() - t0)
        print(f"    (one fit: {times[-1]:.3f} s CPU, {time.perf_counter() - w0:.3f} s wall)", flush=True)
    return min(times), out


class WittgensteinBinary(ClassifierMixin, BaseEstimator):
    """``wittgenstein.RIPPER`` for labels {0, 1} (rules for 1) as a scikit-learn classifier,
    so that ``OneVsRestClassifier`` can clone and fit it."""

    def __init__(self, random_state=0):
        self.random_state = random_state

    def fit(self, X, y):
        import wittgenstein as lw

        self.classes_ = np.array([0, 1])
        self.model_ = lw.RIPPER(random_state=self.random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model_.fit(np.asarray(X), np.asarray(y), pos_class=1)
        return self

    def predict_proba(self, X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = np.asarray(self.model_.predict_proba(np.asarray(X)), dtype=float)
        return p.reshape(len(X), 2)

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] > 0.5).astype(int)


def bench_digits(repeat, backend):
    from sklearn.datasets import load_digits
    from sklearn.multiclass import OneVsRestClassifier

    X, y = load_digits(return_X_y=True)
    single = Bags.from_instances(X, np.arange(X.shape[0]))
    print(f"\nDigits: {X.shape[0]} one-instance bags, {X.shape[1]} features, 10 classes")
    ours = {}
    for order in ("ordered", "unordered"):
        with use_backend(backend):
            t, model = best_time(lambda: RipperMIClassifier(rule_order=order, random_state=0)
                                 .fit(single, y), repeat)
        ours[order] = t
        print(f"  RipperMIClassifier(rule_order={order!r}) ({backend}, best of {repeat}): {t:.3f} s, "
              f"{len(model.rules_)} rules, train accuracy {np.mean(model.predict(single) == y):.3f}")
    try:
        import wittgenstein  # noqa: F401
    except ImportError:
        print("  wittgenstein not installed, no ratio")
        return
    t_theirs, theirs = best_time(lambda: OneVsRestClassifier(WittgensteinBinary(random_state=0)).fit(X, y), 1)
    print(f"  OneVsRestClassifier(wittgenstein.RIPPER) (one fit): {t_theirs:.3f} s, "
          f"train accuracy {np.mean(theirs.predict(X) == y):.3f}")
    for order, t in ours.items():
        print(f"  ratio OvR wittgenstein / ours ({order}): {t_theirs / t:.1f}x  (claim >= 20)")


def small_single_instance_set(seed=0):
    """Breast cancer x 4 with 1 % jitter; the 70 % training part (1,593 rows, 30 features)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    X4 = np.vstack([X * (1 + 0.01 * rng.standard_normal(X.shape)) for _ in range(4)])
    y4 = np.tile(y, 4)
    X_tr, _, y_tr, _ = train_test_split(X4, y4, test_size=0.3, random_state=seed, stratify=y4)
    return X_tr, y_tr


def bench_small(repeat, backend):
    from mil.utils.validation import check_bags

    X, y = small_single_instance_set()
    bags = [row.reshape(1, -1) for row in X]  # a list of one-instance bags, as users pass them
    print(f"\nSmall single-instance set: breast cancer x 4 with 1 % jitter, {len(bags)} one-instance "
          f"bags, {X.shape[1]} features")
    t_check, _ = best_time(lambda: check_bags(bags), max(repeat, 5))
    with use_backend(backend):
        t_ours, model = best_time(lambda: RipperMIClassifier(random_state=0).fit(bags, y), repeat)
        t_ord, model_ord = best_time(lambda: RipperMIClassifier(random_state=0, rule_order="ordered")
                                     .fit(bags, y), repeat)
    print(f"  check_bags on the list: {1e3 * t_check:.1f} ms; RipperMIClassifier ({backend}) defaults "
          f"{1e3 * t_ours:.1f} ms, rule_order='ordered' {1e3 * t_ord:.1f} ms")
    try:
        import pandas as pd
        import wittgenstein as lw
    except ImportError:
        print("  wittgenstein not installed, no ratio")
        return
    frame = pd.DataFrame(X)
    frame["y"] = y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_theirs, _ = best_time(lambda: lw.RIPPER(random_state=0).fit(frame, class_feat="y", pos_class=1),
                                repeat)
    print(f"  wittgenstein RIPPER (best of {repeat}): {t_theirs:.3f} s")
    print(f"  ratio wittgenstein / ours (defaults): {t_theirs / t_ours:.1f}x, (ordered): "
          f"{t_theirs / t_ord:.1f}x  (claim >= 20)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fits (ours)")
    parser.add_argument("--rows", type=int, default=None, help="use only the first N instances")
    parser.add_argument("--skip-musk2-instances", action="store_true",
                        help="skip part 1 (wittgenstein takes minutes on it)")
    parser.add_argument("--skip-digits", action="store_true",
                        help="skip part 2 (wittgenstein takes minutes on it)")
    parser.add_argument("--skip-python-bags", action="store_true",
                        help="part 3 with the compiled kernels only")
    parser.add_argument("--small", action="store_true",
                        help="part 4 only: the small single-instance set (1,593 one-instance bags)")
    args = parser.parse_args()
    backend = "compiled" if compiled_available("_rule_split") else "python"
    if args.small:
        bench_small(args.repeat, backend)
        return
    if not args.skip_digits:
        bench_digits(args.repeat, backend)

    X, bag_ids, y_bags = load_musk2()
    bags = Bags.from_instances(X, bag_ids)
    y_inst = y_bags[bags.instance_bag]
    if args.rows:
        X, y_inst = X[:args.rows], y_inst[:args.rows]
    single = Bags.from_instances(X, np.arange(X.shape[0]))
    if args.skip_musk2_instances:
        bench_musk2_bags(bags, y_bags, args.repeat, args.skip_python_bags)
        return
    print(f"\nMusk2 instances as single-instance bags: {X.shape[0]} rows, {X.shape[1]} features")

    # Defaults (an unordered rule set: rules for both classes), and the ordered mode, which
    # like wittgenstein learns the rules of the positive class only.
    variants = {"defaults": {}, "rule_order='ordered'": {"rule_order": "ordered"}}
    timed = {}
    for label, params in variants.items():
        with use_backend(backend):
            t, model = best_time(lambda: RipperMIClassifier(random_state=0, **params)
                                 .fit(single, y_inst), args.repeat)
        timed[label] = (t, model, np.mean(model.predict(single) == y_inst))

    try:
        import pandas as pd
        import wittgenstein as lw
    except ImportError:
        for label, (t, model, acc) in timed.items():
            print(f"RipperMIClassifier {label} ({backend}): {t:.3f} s, {len(model.rules_)} rules, "
                  f"train accuracy {acc:.3f}; wittgenstein not installed, no ratio")
    else:
        frame = pd.DataFrame(X)
        frame["y"] = y_inst
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = lw.RIPPER(random_state=0)
            t_theirs, _ = best_time(lambda: theirs.fit(frame, class_feat="y", pos_class=1), 1)
            acc_theirs = np.mean(np.asarray(theirs.predict(pd.DataFrame(X))) == (y_inst == 1))
        print(f"wittgenstein RIPPER (one fit): {t_theirs:.3f} s, {len(theirs.ruleset_.rules)} rules, "
              f"train accuracy {acc_theirs:.3f}")
        for label, (t, model, acc) in timed.items():
            print(f"RipperMIClassifier {label} ({backend}, best of {args.repeat}): {t:.3f} s, "
                  f"{len(model.rules_)} rules, train accuracy {acc:.3f}")
            print(f"ratio wittgenstein / ours ({label}): {t_theirs / t:.1f}x  (claim >= 20)")
    bench_musk2_bags(bags, y_bags, args.repeat, args.skip_python_bags)


def bench_musk2_bags(bags, y_bags, repeat, skip_python=False):
    print(f"\nRIPPER-MI on the Musk2 bags: {bags.n_bags} bags, {bags.n_instances} instances")
    for kind in ("compiled", "python"):
        if (kind == "compiled" and not compiled_available("_rule_split")) or (
                kind == "python" and skip_python):
            continue
        with use_backend(kind):
            t, model = best_time(lambda: RipperMIClassifier(random_state=0).fit(bags, y_bags),
                                 repeat)
            t_std, _ = best_time(lambda: RipperMIClassifier(random_state=0, assumption="standard")
                                 .fit(bags, y_bags), repeat)
        print(f"  {kind:8s} fit {t:.3f} s, {len(model.rules_)} rules (defaults); "
              f"assumption='standard' {t_std:.3f} s")


if __name__ == "__main__":
    main()
