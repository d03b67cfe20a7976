"""MInD variants tried for Musk2 and Tiger (docs/results/embeddings.rst), 5 published repetitions x 10 folds.

Each variant is the default ``MInDClassifier(random_state=0)`` (average
dissimilarity, raw features, the default grids, inner 5-fold tuning) with
one change, run by :func:`mil.evaluation.evaluate` on the five published
fold repetitions of each set given:

- ``both``: mean-min in both directions side by side (d(B, P) and
  d(P, B) for every prototype bag P), an RBF SVM on the 2n-vector;
- ``std``: the columns of the dissimilarity matrix standardised on the
  (inner-)training bags before the RBF kernel;
- ``auto``: the dissimilarity (average or mean-min) chosen by the inner CV
  together with C and gamma;
- ``hinge``: grid points of equal inner accuracy told apart by their
  out-of-fold hinge loss (instead of the smallest C, then the first gamma);
- ``linear``: a linear SVM (``LinearSVC``, squared hinge, L2 penalty) on the
  dissimilarity vectors, columns standardised on the (inner-)training bags,
  C chosen by the inner CV from 1e-3 ... 1e2 (Cheplygina, Tax and Loog
  2015 also report linear classifiers on dissimilarities);
- ``logreg``: the same with L2 logistic regression;
- ``sqrt``: the square root of each dissimilarity before the RBF kernel on
  the dissimilarity vectors (a power transform, fixed a priori);
- ``log``: ``log(1 + d / m)`` of each dissimilarity (m: the median
  dissimilarity of the (inner-)training bags) before the RBF kernel;
- ``dkernel``: the bag-level kernel ``exp(-gamma d(B, B'))`` on the
  dissimilarity itself (not on the vectors of dissimilarities), gamma the
  scales of the default grid divided by the median dissimilarity;
- ``mixed``: the default's RBF grid plus a linear kernel on the
  standardised dissimilarity vectors (``Z Z^T / n_prototypes``) as one more
  grid point of the inner CV (with every C), so the inner CV chooses
  between the RBF and the linear machine (now
  ``MInDClassifier(kernel="auto")``);
- ``wide``: the default with a wider grid, C in 1e-2 ... 1e4 and gamma
  scales 4**-4 ... 4**4 (9 x 7 points);
- ``wide3``: the wider grid with 3 inner folds instead of 5;
- ``default``: the classifier as shipped.

    python benchmarks/mind_variants.py VARIANT SET [SET ...] [--json FILE]

Prints accuracy % and AUC % (mean over the 50 folds), the five repetitions'
accuracies, and the CPU time.
"""
import argparse
import json
import time
import warnings

import numpy as np

from mil.datasets import load_dataset
from mil.evaluation import evaluate, table_splits
from mil.embedding import MInDClassifier
from mil.embedding._classifiers import _column_scaling, _rbf_fold
from mil.embedding._minima import dissimilarities, minima


class Both(MInDClassifier):
    """Mean-min in both directions side by side."""

    def _prepare(self, bags):
        index = np.arange(bags.n_bags)
        self.prototype_indices_ = index
        self.prototypes_ = bags
        M = minima(bags, centre=self.centre_, n_jobs=self.n_jobs)
        D = dissimilarities(M, bags.offsets, "meanmin")
        return {"D": np.hstack([D, D.T]), "prototype": index}

    def _fold(self, state, train, test):
        n = state["D"].shape[0]
        cols = np.r_[train, train + n] if train.size else np.r_[np.arange(n), np.arange(n) + n]
        D = state["D"]
        F_train, F_test = D[np.ix_(train, cols)], D[np.ix_(test, cols)]
        return _rbf_fold(F_train, F_test)

    def _raw_decision(self, bags):
        Mxy, Myx = minima(bags, self.prototypes_, both=True, centre=self.centre_, n_jobs=self.n_jobs)
        F = np.hstack([dissimilarities(Mxy, bags.offsets, "meanmin"),
                       dissimilarities(Myx, self.prototypes_.offsets, "meanmin").T])
        return self._svm_decision(F)


class Std(MInDClassifier):
    """Dissimilarity columns standardised on the (inner-)training bags."""

    def _fold(self, state, train, test):
        cols = np.intersect1d(state["prototype"], train) if train.size else state["prototype"]
        D = state["D"]
        F_train, F_test = D[np.ix_(train, cols)], D[np.ix_(test, cols)]
        mu, sd = F_train.mean(0), F_train.std(0)
        sd[sd == 0] = 1.0
        F_train, F_test = (F_train - mu) / sd, (F_test - mu) / sd
        self._mu, self._sd = mu, sd
        return _rbf_fold(F_train, F_test)

    def _raw_decision(self, bags):
        F = _to_prototypes(self, bags)
        F = (F - self._mu) / self._sd
        return self._svm_decision(F)


class Auto(MInDClassifier):
    """The dissimilarity (mean-min or average) chosen with C and gamma by the inner CV."""
    KINDS = ("average", "meanmin")

    def _prepare(self, bags):
        index = np.arange(bags.n_bags)
        self.prototype_indices_ = index
        self.prototypes_ = bags
        M = minima(bags, centre=self.centre_, n_jobs=self.n_jobs)
        return {"D": {k: dissimilarities(M, bags.offsets, k, M, bags.offsets) for k in self.KINDS},
                "prototype": index}

    def _fold(self, state, train, test):
        out = {}
        for k, D in state["D"].items():
            cols = train if train.size else state["prototype"]
            F_train, F_test = D[np.ix_(train, cols)], D[np.ix_(test, cols)]
            out[k] = _rbf_fold(F_train, F_test)
        return out

    def _param_grid(self, state):
        return [(k, ("median", float(g))) for k in self.KINDS for g in self.gamma_scales]

    def _features(self, fold, param):
        k, p = param
        f = fold[k]
        g = p[1] / f["median"]
        return np.exp(-g * f["S_train"]), np.exp(-g * f["S_test"])

    def _finish(self, state, machine, param):
        k, p = param
        everyone = np.arange(state["D"][k].shape[0])
        fold = self._fold(state, everyone, everyone[:0])[k]
        self.kind_, self.kernel_ = k, "rbf"
        self.gamma_ = p[1] / fold["median"]
        self.svm_ = machine
        self.support_vectors_ = fold["F_train"][machine.support_]

    def _raw_decision(self, bags):
        out = minima(bags, self.prototypes_, both=True, centre=self.centre_, n_jobs=self.n_jobs)
        F = dissimilarities(out[0], bags.offsets, self.kind_, out[1], self.prototypes_.offsets)
        return self._svm_decision(F)


class Hinge(MInDClassifier):
    """Grid points at equal inner accuracy told apart by their out-of-fold hinge loss."""

    @staticmethod
    def _grid_scores(oof, target, w, k):
        accuracy = MInDClassifier._grid_scores(oof, target, w, k)
        if k != 2:
            return accuracy
        margin = np.where(target == 1, oof, -oof)
        hinge = (np.maximum(0.0, 1.0 - margin) * w).sum(axis=-1) / w.sum()
        return accuracy - 1e-9 * hinge  # below one bag's share of the accuracy


def _to_prototypes(clf, bags):
    """Dissimilarities of `bags` to a fitted variant's prototypes (its `dissimilarity`)."""
    out = minima(bags, clf.prototypes_, both=True, centre=clf.centre_, n_jobs=clf.n_jobs)
    return dissimilarities(out[0], bags.offsets, clf.dissimilarity, out[1], clf.prototypes_.offsets)


class _Transformed(MInDClassifier):
    """The default with a fixed, elementwise transform of the dissimilarities before the RBF kernel."""

    def _transform(self, D, reference):
        raise NotImplementedError

    def _fold(self, state, train, test):
        D = state["D"]
        cols = train if train.size else state["prototype"]
        F_train, F_test = D[np.ix_(train, cols)], D[np.ix_(test, cols)]
        self._reference = F_train
        return _rbf_fold(self._transform(F_train, F_train), self._transform(F_test, F_train))

    def _raw_decision(self, bags):
        F = _to_prototypes(self, bags)
        return self._svm_decision(self._transform(F, self._reference))


class Sqrt(_Transformed):
    """Square roots of the dissimilarities."""

    def _transform(self, D, reference):
        return np.sqrt(D)


class Log(_Transformed):
    """log(1 + d / m), m the median dissimilarity of the (inner-)training bags."""

    def _transform(self, D, reference):
        m = float(np.median(reference))
        return np.log1p(D / (m if m > 0 else 1.0))


class DKernel(MInDClassifier):
    """The kernel exp(-gamma d(B, B')) on the bag dissimilarity itself (gamma: scales / median d)."""

    def _fold(self, state, train, test):
        D = state["D"]
        cols = train if train.size else state["prototype"]
        S = D[np.ix_(train, cols)]
        off = ~np.eye(S.shape[0], dtype=bool)
        med = float(np.median(S[off])) if off.any() else 1.0
        return {"S_train": S, "S_test": D[np.ix_(test, cols)], "median": med if med > 0 else 1.0,
                "F_train": S}

    def _raw_decision(self, bags):
        F = _to_prototypes(self, bags)
        K = np.zeros((F.shape[0], self.svm_.shape_fit_[1]))
        K[:, self.svm_.support_] = np.exp(-self.gamma_ * F[:, self.svm_.support_])
        return self.svm_.decision_function(K)


class Linear(MInDClassifier):
    """A linear SVM on the standardised dissimilarity vectors (C by the inner CV)."""

    def _fold(self, state, train, test):
        D = state["D"]
        cols = train if train.size else state["prototype"]
        F_train, F_test = D[np.ix_(train, cols)], D[np.ix_(test, cols)]
        self._mu, self._sd = _column_scaling(F_train)
        return {"F_train": (F_train - self._mu) / self._sd, "F_test": (F_test - self._mu) / self._sd}

    def _param_grid(self, state):
        return [("none", 0.0)]

    def _features(self, fold, param):
        return fold["F_train"], fold["F_test"]

    def _machine(self, C, inner=False):
        from sklearn.svm import LinearSVC

        return LinearSVC(C=C, dual=True, max_iter=20000, random_state=0)

    def _finish(self, state, machine, param):
        self.gamma_ = float("nan")
        self.svm_ = machine

    def _raw_decision(self, bags):
        F = _to_prototypes(self, bags)
        return self.svm_.decision_function((F - self._mu) / self._sd)


class LogReg(Linear):
    """L2 logistic regression on the standardised dissimilarity vectors (C by the inner CV)."""

    def _machine(self, C, inner=False):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=C, max_iter=5000)


LINEAR_CS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)


def _linear(**kwargs):
    return Linear(Cs=LINEAR_CS, **kwargs)


def _logreg(**kwargs):
    return LogReg(Cs=LINEAR_CS, **kwargs)


def _mixed(**kwargs):
    # First run as a subclass here; now the library's option (identical decisions, checked).
    return MInDClassifier(kernel="auto", **kwargs)


def _wide(**kwargs):
    return MInDClassifier(Cs=tuple(10.0 ** np.arange(-2, 5)), gamma_scales=tuple(4.0 ** np.arange(-4, 5)),
                          **kwargs)


VARIANTS = {"both": Both, "std": Std, "auto": Auto, "hinge": Hinge, "default": MInDClassifier,
            "linear": _linear, "logreg": _logreg, "sqrt": Sqrt, "log": Log, "dkernel": DKernel, "mixed": _mixed,
            "wide": _wide, "wide3": lambda **kwargs: _wide(cv=3, **kwargs)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", choices=sorted(VARIANTS))
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--json", default=None, help="also write the fold accuracies and AUCs here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    out = {}
    for name in args.datasets:
        d = load_dataset(name)
        splits = [s for r in range(5) for s in table_splits(d.folds[r])]
        t = time.process_time()
        r = evaluate(VARIANTS[args.variant](random_state=0), d.bags, d.target, splits)
        a, u = np.asarray(r["accuracy"]), np.asarray(r["auc"])
        out[name] = {"accuracy": a.tolist(), "auc": u.tolist()}
        reps = [round(100 * float(a[10 * i:10 * i + 10].mean()), 1) for i in range(5)]
        print(f"{args.variant} {name} acc={100 * a.mean():.1f} auc={100 * np.nanmean(u):.1f} reps={reps} "
              f"cpu={time.process_time() - t:.0f}s", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh)


if __name__ == "__main__":
    main()
