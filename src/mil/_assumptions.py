"""Which learner under which multi-instance assumption: the digit-bags benchmark (``mil reproduce assumptions``).

Every registered learner is cross-validated on the bags of
:func:`mil.datasets.make_digit_bags` under each assumption: presence (one
witness), several concepts together, absence of a concept, and a count of
witnesses; under absence also with ``positive_class=0`` for the learners that
take it (the bags that hold the concept named as the multi-instance positive
class, which is what the standard assumption expects).
"""

import time

import numpy as np
from sklearn.utils import Bunch

from mil._learners import SEED_PARAMS, available_learners, make_learner
from mil.datasets import make_digit_bags
from mil.evaluation import evaluate, fold_indices
from mil.reproduce import seeded_runs

__all__ = ["TASKS", "reproduce_assumptions", "assumptions_table"]

#: column -> (assumption of make_digit_bags, positive_class given to the learners or None).
TASKS = {
    "presence": ("presence", None),
    "several": ("several", None),
    "absence": ("absence", None),
    "absence, pc=0": ("absence", 0),
    "count": ("count", None),
}


def reproduce_assumptions(tasks=None, learners=None, seeds=3, n_bags=200, folds=10, quick=False,
                          progress=None, n_jobs=None):
    """Bag-level CV of registered learners on digit bags under each assumption.

    Protocol: for each task, ``make_digit_bags(assumption, n_bags=n_bags,
    random_state=0)`` (200 bags of 3 to 7 digits, half positive), stratified
    `folds`-fold CV with seed 0 over the bags, every learner at its registry
    defaults; a randomised learner (:data:`mil._learners.SEED_PARAMS`) runs
    with the seeds 0 .. `seeds` - 1. Accuracy and AUC (of the label 1) per fold.

    Parameters
    ----------
    tasks : sequence of str, default=None
        Keys of :data:`TASKS` (default: all).
    learners : sequence of str, default=None
        Registry names (default: every available learner but ``recommended``,
        the soft vote of three learners the table already holds).
    seeds : int, default=3
    n_bags : int, default=200
    folds : int, default=10
    quick : bool, default=False
        40 bags, 2 of 3 folds, one seed (a smoke test).
    progress : mil._progress.Progress, default=None
    n_jobs : int, default=None
        Worker processes over the folds (results do not depend on it).

    Returns
    -------
    result : Bunch
        ``accuracy[learner][task]`` and ``auc`` (one value per fold, seed after
        seed; absent for a learner that does not take ``positive_class`` in
        the ``pc=0`` task), ``seed_accuracy`` / ``seed_auc`` (randomised
        learners: the mean over the folds of each seed), ``seconds``,
        ``learners``, ``tasks``, ``seeds``, ``rules`` (task -> rule in words),
        ``protocol``.
    """
    tasks = tuple(tasks or TASKS)
    learners = tuple(learners or (n for n in available_learners("classification") if n != "recommended"))
    if quick:
        n_bags, folds, seeds = 40, 3, 1
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1; got {seeds}")
    acc, auc, seed_acc, seed_auc, secs, rules = {}, {}, {}, {}, {}, {}
    for task in tasks:
        assumption, positive = TASKS[task]
        data = make_digit_bags(assumption, n_bags=n_bags, random_state=0)
        rules[task] = data.rule
        splits = fold_indices(data.target, folds=folds, seed=0)
        if quick:
            splits = splits[:2]
        for learner in learners:
            params = {}
            if positive is not None:
                if "positive_class" not in make_learner(learner).get_params(deep=False):
                    continue
                params["positive_class"] = positive
            if progress is not None:
                progress.set_label(f"{learner} on {task}", len(splits) * (seeds if learner in SEED_PARAMS else 1))
            t0 = time.perf_counter()
            a, u, seeded, _ = seeded_runs(learner, data.bags, data.target, splits, seeds, progress, n_jobs,
                                          params)
            secs.setdefault(learner, {})[task] = time.perf_counter() - t0
            acc.setdefault(learner, {})[task] = a
            auc.setdefault(learner, {})[task] = u
            if seeded is not None:
                seed_acc.setdefault(learner, {})[task], seed_auc.setdefault(learner, {})[task] = seeded
    protocol = (f"{n_bags} digit bags per task (make_digit_bags, random_state=0), stratified "
                f"{folds}-fold CV with seed 0" + (", 2 folds" if quick else "")
                + (f", randomised learners over seeds 0-{seeds - 1}" if seeds > 1 else ", seed 0"))
    return Bunch(accuracy=acc, auc=auc, seed_accuracy=seed_acc, seed_auc=seed_auc, seconds=secs,
                 learners=learners, tasks=tasks, seeds=seeds, rules=rules, protocol=protocol, quick=quick)


def assumptions_table(result):
    """Rows ``[learner, "accuracy (AUC)" per task]``, percent; randomised learners marked ``*``.

    A randomised learner's cell is the mean over its seeds with the range of
    the seeds' accuracies in brackets; "-" where the learner did not run (the
    ``pc=0`` task for a learner without ``positive_class``).
    """
    rows = []
    for learner in result.learners:
        randomised = learner in result.seed_accuracy and result.seeds > 1
        cells = [learner + (" *" if randomised else "")]
        for task in result.tasks:
            if task not in result.accuracy.get(learner, {}):
                cells.append("-")
                continue
            a = 100 * np.mean(result.accuracy[learner][task])
            u = result.auc[learner][task]
            u = 100 * np.nanmean(u) if np.isfinite(u).any() else float("nan")
            cell = f"{a:.1f} ({u:.1f})"
            if randomised:
                s = 100 * np.asarray(result.seed_accuracy[learner][task])
                cell += f" [{s.min():.1f}-{s.max():.1f}]"
            cells.append(cell)
        rows.append(cells)
    return rows
