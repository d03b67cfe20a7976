"""BagKernelSVC(kernel="nsk") fit time against sawmil's NSK on Elephant, same C and gamma.

sawmil (https://pypi.org/project/sawmil/) cannot share mil's environment, so
this script runs in three steps, each printing what it measured:

    python benchmarks/bench_sawmil.py dump elephant.npz           # mil's environment
    /path/to/sawvenv/bin/python benchmarks/bench_sawmil.py sawmil elephant.npz
    python benchmarks/bench_sawmil.py mil elephant.npz            # mil's environment

Both fit the normalised set kernel (RBF instance kernel, the cosine
normalisation: sawmil's ``normalizer="featurespace"``) with fixed C = 10
and gamma = 1 / the median squared distance between all instances (fixed a
priori, no tuning), on unscaled features, over the 10 published folds of
repetition 0. sawmil's ``scale_C=False`` keeps C as libsvm's. Prints the
total fit time and the accuracy on the same folds. mil runs twice: with
its default inner 5-fold CV, which at fixed C and gamma runs only to
calibrate ``predict_proba`` (sawmil has none), and with ``cv=1``: one
kernel pass and one SVM, the work sawmil's fit does.

    python benchmarks/bench_sawmil.py mil elephant.npz --repeat 3   # best of 3 per fold
"""

import sys
import time

import numpy as np

C = 10.0


def dump(path):
    from mil.datasets import load_elephant
    from mil._scaling import median_sq_distance

    d = load_elephant()
    bags = d.bags
    gamma = 1.0 / median_sq_distance(bags.instances)
    np.savez(path, instances=bags.instances, offsets=bags.offsets, y=np.asarray(d.target),
             folds=d.folds[0], gamma=gamma)
    print(f"Elephant: {bags.n_bags} bags, {bags.instances.shape[0]} instances; gamma = {gamma:.4g}")


def load(path):
    z = np.load(path)
    off = z["offsets"]
    bags = [z["instances"][off[i]:off[i + 1]] for i in range(off.shape[0] - 1)]
    return bags, z["y"], z["folds"], float(z["gamma"])


def run(path, which, repeat=1):
    if which == "mil":
        for cv in (5, None):
            _run(path, which, repeat, cv)
    else:
        _run(path, which, repeat, None)


def _run(path, which, repeat, cv):
    bags, y, folds, gamma = load(path)
    fit_time, correct = 0.0, 0
    for k in np.unique(folds):
        tr, te = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        btr, bte = [bags[i] for i in tr], [bags[i] for i in te]
        if which == "sawmil":
            from sawmil.kernels import RBF
            from sawmil.nsk import NSK

            ytr = np.where(y[tr] == 1, 1.0, -1.0)
            best = np.inf
            for _ in range(repeat):
                est = NSK(C=C, kernel=RBF(gamma=gamma), solver="osqp", normalizer="featurespace",
                          scale_C=False)
                t0 = time.perf_counter()
                est.fit(btr, ytr)
                best = min(best, time.perf_counter() - t0)
            fit_time += best
            pred = (np.asarray(est.decision_function(bte)) > 0).astype(int)
        else:
            from mil.svm import BagKernelSVC

            best = np.inf
            for _ in range(repeat):
                est = BagKernelSVC(kernel="nsk", C=C, gamma=gamma, gamma_scale="absolute", scale=None,
                                   cv=cv)
                t0 = time.perf_counter()
                est.fit(btr, y[tr])
                best = min(best, time.perf_counter() - t0)
            fit_time += best
            pred = est.predict(bte)
        correct += int(np.sum(pred == y[te]))
    label = which if which == "sawmil" else f"mil (cv={cv})"
    print(f"{label}: NSK on Elephant, 10 folds, C={C:g}, gamma={gamma:.4g}: total fit time "
          f"{fit_time:.2f} s, accuracy {100 * correct / len(y):.1f} %")


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    rep = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    dump(path) if mode == "dump" else run(path, mode, rep)
