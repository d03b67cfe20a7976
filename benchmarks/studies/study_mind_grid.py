"""Which (C, gamma scale) MInD's inner CV chooses from a wide grid on every published training fold.

Fits ``MInDClassifier`` with C in 1e-2 ... 1e4 and gamma scales 4^-4 ... 4^4
on each training fold of the five published repetitions x 10 folds of the
named sets and counts the chosen points (recorded before the refit). The
default grid keeps the points chosen here (docs/results/embeddings.rst,
"How the grids were chosen"). Usage::

    OMP_NUM_THREADS=1 python benchmarks/studies/study_mind_grid.py musk1 musk2 elephant fox tiger [--json FILE]
"""

import argparse
import collections
import json
import warnings

import numpy as np

from mil.datasets import load_dataset
from mil.embedding import MInDClassifier
from mil.evaluation import table_splits

CS = tuple(10.0 ** np.arange(-2, 5))
GAMMA_SCALES = tuple(4.0 ** np.arange(-4, 5))


class _Recording(MInDClassifier):
    """MInD that keeps the inner CV's choice (``best_params_`` holds the absolute gamma after the refit)."""

    def _keep(self, rep, fold, row, col, model, selection):
        self.choice_ = (float(col["C"]), float(row["_scale"]))
        super()._keep(rep, fold, row, col, model, selection)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--json", default=None, help="also write every fold's (C, gamma scale) here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    out = {}
    for name in args.datasets:
        data = load_dataset(name)
        y = np.asarray(data.target)
        picks = []
        for r in range(5):
            for train, _ in table_splits(data.folds[r]):
                model = _Recording(Cs=CS, gamma_scales=GAMMA_SCALES, random_state=0)
                picks.append(model.fit(data.bags[train], y[train]).choice_)
        out[name] = picks
        counts = collections.Counter(picks).most_common()
        print(name, ", ".join(f"C={c:g} scale={g:g}: {n}" for (c, g), n in counts), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh)


if __name__ == "__main__":
    main()
