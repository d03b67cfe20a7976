"""``mil evaluate`` (and ``mil`` alone): cross-validate learners on a data set and report.

The first fold of every learner runs first: it says which learners cannot
take the data (skipped with the reason) and how long a fold of each takes,
so the progress can estimate the time left. Warnings raised in the folds are
said once per learner after the table.
"""

import csv
import io
import re
import sys

import numpy as np
from joblib import effective_n_jobs

from mil._costs import estimate_seconds, memory_warning, scaling_warning
from mil._learners import DEFAULT_JOB, DEFAULT_REGRESSION_JOB, LEARNERS, available_learners, make_learner, resolve_learner
from mil._progress import Progress, format_duration
from mil.cli._common import CLIError, check_jobs, thread_budget
from mil.cli._planning import decide_task, plan_folds, positive_class
from mil.cli._reading import load
from mil.cli._report import print_json, table
from mil.evaluation import evaluate, merge_warnings
from mil.utils._threads import limited_threads

__all__ = ["cmd_default", "cmd_evaluate", "cmd_info", "learner_names", "make_cli_learner", "run_learners"]


def cmd_info(args):
    from mil._config import show_config

    show_config()
    return 0


def cmd_default(args):
    """``mil`` alone: the configuration, then the default job on Musk1."""
    if not (args.json or args.csv):
        cmd_info(args)
        print()
    return cmd_evaluate(args)


def _reason(exc, source):
    """A learner's error as one line, naming the user's data `source`.

    The learners' checks name their argument ("bag 'mol_5' of X contains
    NaN"); on the command line the bags come from `source`, so that is the
    name the user sees.
    """
    text = str(exc).strip().splitlines()
    if not text:
        return type(exc).__name__
    return re.sub(r"\bof X\b", f"of {source}", text[0])


def make_cli_learner(learner, positive, seed, sparse=False, task="classification"):
    """The registry's learner with the command line's settings.

    `seed` (``--seed``, default 0) goes to the randomised learners only
    (:data:`mil._learners.SEED_PARAMS`), so their runs are reproducible;
    the deterministic ones keep their defaults. A learner of the other task
    is a ValueError that says so (the learner is then skipped).
    """
    if LEARNERS[learner].task != task:
        kind = "a regressor" if LEARNERS[learner].task == "regression" else "a classifier"
        raise ValueError(f"{kind}, and the labels are {'real values (a regression)' if task == 'regression' else 'classes'}")
    est = make_learner(learner)
    names = est.get_params(deep=False)
    params = {}
    # A learner that treats the two classes alike takes no positive class (the encoder
    # classifiers deprecate the parameter).
    if positive is not None and "positive_class" in names and not getattr(est, "_classes_alike", False):
        params["positive_class"] = positive
    if sparse and "scale" in names:
        params["scale"] = None  # sparse bags stay sparse: no centring (MILWEB's published protocol)
    return make_learner(learner, seed=seed, **params)


def run_learners(names, data, splits, positive, args, progress, task="classification"):
    """Cross-validate each learner; ``(results, skipped)`` in the order of `names`.

    Folds are independent (each fits a clone), so the results are those of
    one :func:`mil.evaluation.evaluate` call over all the splits.
    """
    first, rest = splits[:1], splits[1:]
    started, skipped = [], []
    for learner in names:
        progress.set_label(f"{learner} (fold 1)")
        t0 = progress.clock()
        try:
            est = make_cli_learner(learner, positive, args.seed, data.bags.is_sparse, task)
            res = evaluate(est, data.bags, data.y, first, progress=progress, positive_class=positive,
                           record_warnings=True)
        except (ValueError, TypeError) as exc:  # the learner cannot take this input (or is missing)
            skipped.append((learner, _reason(exc, data.name)))
            progress.skip(len(splits))
            continue
        started.append((learner, est, res, progress.clock() - t0))
    # Folds of one learner run side by side with --jobs.
    workers = max(min(effective_n_jobs(args.jobs), max(len(rest), 1)), 1)
    progress.plan([seconds / workers for _, _, _, seconds in started for _ in rest],
                  [learner for learner, _, _, _ in started for _ in rest])
    results = []
    for learner, est, res, _ in started:
        if rest:
            progress.set_label(learner)
            before = progress.done
            try:
                more = evaluate(est, data.bags, data.y, rest, progress=progress, n_jobs=args.jobs,
                                positive_class=positive, record_warnings=True)
            except (ValueError, TypeError) as exc:  # e.g. a later fold the learner cannot take
                skipped.append((learner, _reason(exc, data.name)))
                progress.skip(len(rest) - (progress.done - before))
                continue
            res = {key: (np.concatenate([res[key], more[key]]) if isinstance(res[key], np.ndarray) else res[key])
                   for key in res}
            res["warnings"] = merge_warnings(res["warnings"], more["warnings"])
        results.append((learner, res))
    skipped.sort(key=lambda item: names.index(item[0]))
    return results, skipped


def _auc_note(learner, auc, splits, y, n_classes):
    """Why a learner's AUC is missing or averaged over fewer folds (None: every fold has one)."""
    missing = ~np.isfinite(np.asarray(auc, dtype=np.float64))
    if not missing.any():
        return None
    est = make_learner(learner)
    if not hasattr(est, "predict_proba") and (n_classes > 2 or not hasattr(est, "decision_function")):
        return "the learner gives no scores (no predict_proba" + \
            (")" if n_classes > 2 else " nor decision_function)")
    one_class = np.array([len(np.unique(y[test])) < 2 for _, test in splits])
    parts = []
    if (missing & one_class).any():
        parts.append(f"{int((missing & one_class).sum())} of {len(splits)} test folds hold bags of a "
                     f"single class, where AUC is undefined")
    if (missing & ~one_class).any():
        parts.append(f"{int((missing & ~one_class).sum())} of {len(splits)} folds gave no scores")
    if missing.all():
        return "; ".join(parts) + "; no AUC"
    return "; ".join(parts) + f"; the mean is over the other {int((~missing).sum())}"


def _per_fold(res, splits, n_folds, keys):
    """Scores of every fold for --json (None where a score is undefined)."""
    def value(x):
        return float(x) if np.isfinite(x) else None

    return [{"repeat": i // n_folds, "fold": i % n_folds, "n_test": int(len(test)),
             **{key: value(res[key][i]) for key in keys}, "fit_time_s": float(res["fit_time"][i]),
             "predict_time_s": float(res["predict_time"][i])}
            for i, (_, test) in enumerate(splits)]


def warning_lines(results, n_folds):
    """One line per learner and distinct warning its folds raised, naming the learner.

    Each says the warning's kind, in how many folds, and its first line;
    deprecation notices of the libraries are left out, as Python's default
    filters do.
    """
    lines = []
    for learner, res in results:
        for category, message, n in res.get("warnings") or ():
            if issubclass(category, (DeprecationWarning, PendingDeprecationWarning)):
                continue
            first = message.strip().splitlines()[0] if message.strip() else ""
            lines.append(f"mil: warning: {learner}: {category.__name__} in {n} of {n_folds} folds: {first} "
                         f"(the scores are those of the models as fitted)")
    return lines


def learner_names(model, task="classification"):
    """The learners of ``--model``: the task's default job without it, all of the task's for ``all``.

    Names match ignoring case (``_`` for ``-``); a former name works with a
    note on stderr; an unknown one is an error with the closest names. A
    named learner of the other task is kept (it is then skipped with the
    reason).
    """
    available = available_learners(task)
    if not model:
        job = DEFAULT_REGRESSION_JOB if task == "regression" else DEFAULT_JOB
        names = [n for n in job if n in available]
    else:
        names = []
        for given in model:
            if given.strip().lower() == "all":
                chosen = available
            else:
                try:
                    name, note = resolve_learner(given)
                except ValueError as exc:
                    raise CLIError(f"{exc} (each with its cost: mil evaluate --help)") from None
                if note:
                    print(f"mil: note: {note}", file=sys.stderr)
                chosen = [name]
            names += [n for n in chosen if n not in names]
    if not names:
        what = "regressor" if task == "regression" else "learner"
        raise CLIError(f"no {what} is available in this installation")
    return names


def estimate_note(names, data, splits, jobs):
    """Lines before a job starts: its estimated time as a range, what dominates it, and warnings.

    The first line gives the range (:func:`mil._costs.fold_range` summed over
    the learners and the folds of `splits`) and the learners that dominate
    it; one warning follows for each learner whose cost grows quadratically
    and would take long at this size, and one for each whose matrices over
    pairs of training bags would fill much of the machine's memory
    (:func:`mil._costs.memory_warning`), naming the scalable alternatives.
    """
    n_fits = len(splits)
    workers = max(min(effective_n_jobs(jobs), n_fits), 1)
    n, d = data.bags.n_instances, data.bags.n_features
    m = len(data.y)
    total, per = estimate_seconds(names, n, d, n_fits, workers, n_bags=m)
    low = estimate_seconds(names, n, d, n_fits, workers, bound="low", n_bags=m)[0]
    high = estimate_seconds(names, n, d, n_fits, workers, bound="high", n_bags=m)[0]
    costly = sorted(((t, name) for name, t in per.items() if t is not None and t >= 0.25 * total and t >= 60),
                    reverse=True)
    why = [f"mostly {', '.join(f'{name} ({format_duration(t)})' for t, name in costly)}"] if costly else []
    unmeasured = [name for name, t in per.items() if t is None]
    if unmeasured:
        why.append(f"{', '.join(unmeasured)} not counted")
    why.append("an estimate from CPU times measured on a 2-core x86-64, scaled to these data; a busy machine takes longer; "
               "the progress refines it")
    span = (f"about {format_duration(max(total, 1.0))}" if high < 1.5 else
            f"{format_duration(max(low, 1.0))} to {format_duration(max(high, 1.0))}")
    lines = [f"mil: {len(names)} learner{'s' if len(names) > 1 else ''} x {n_fits} folds on "
             f"{len(data.y)} bags ({n} instances x {d} features): {span} ({'; '.join(why)})"]
    n_train = max(len(train) for train, _ in splits)
    warnings = [scaling_warning(name, n, d, n_bags=m) for name in names]
    warnings += [memory_warning(name, n_train, workers) for name in names]
    lines += [f"mil: warning: {text}" for text in warnings if text]
    return "\n".join(lines)


def _mean(values):
    values = np.asarray(values, dtype=np.float64)
    return float(np.nanmean(values)) if np.isfinite(values).any() else None


#: The scores of a fold by task, as :func:`mil.evaluation.evaluate` returns them.
_FOLD_SCORES = {"classification": ("accuracy", "auc", "log_loss"), "regression": ("rmse", "mae", "r2")}


def _records(names, results, skipped, splits, data, common, n_folds, task):
    if task == "regression":
        scores = [{"rmse_mean": _mean(res["rmse"]), "rmse_std": float(np.std(res["rmse"])),
                   "mae_mean": _mean(res["mae"]), "r2_mean": _mean(res["r2"]),
                   "prior_rmse_mean": _mean(res["prior_rmse"])} for _, res in results]
    else:
        n_classes = len(np.unique(data.y))
        scores = [{"accuracy_mean": float(res["accuracy"].mean()), "accuracy_std": float(res["accuracy"].std()),
                   "auc_mean": _mean(res["auc"]),
                   "auc_note": _auc_note(learner, res["auc"], splits, data.y, n_classes),
                   "log_loss_mean": float(np.mean(res["log_loss"])) if np.isfinite(res["log_loss"]).all() else None,
                   "prior_log_loss_mean": float(np.mean(res["prior_log_loss"]))} for learner, res in results]
    records = [{"learner": learner, "status": "ok", "task": task, **score,
                "fit_time_s": float(res["fit_time"].mean()), "predict_time_s": float(res["predict_time"].mean()),
                "reason": None, **common, "per_fold": _per_fold(res, splits, n_folds, _FOLD_SCORES[task])}
               for (learner, res), score in zip(results, scores)]
    empty = dict.fromkeys(records[0] if records else ("accuracy_mean",))
    records += [{**empty, "learner": learner, "status": "skipped", "task": task, "reason": reason, **common,
                 "per_fold": None} for learner, reason in skipped]
    records.sort(key=lambda r: names.index(r["learner"]))  # the order the learners were asked in
    return records


def _print_csv(records):
    buf = io.StringIO()
    # One row per learner: the per-fold scores are in --json only.
    writer = csv.DictWriter(buf, fieldnames=[k for k in records[0] if k != "per_fold"], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(records)
    print(buf.getvalue(), end="")


def _print_text(records, skipped, data, positive, plan, source, task):
    if task == "regression":
        labels = f"real-valued labels from {np.min(data.y):g} to {np.max(data.y):g}"
    else:
        classes = np.unique(data.y)
        labels = f"{len(classes)} classes" if len(classes) > 2 else "two classes"
        if positive is not None:
            labels += f", positive {positive!r}"
    print(f"{data.name}: {len(data.y)} bags ({labels}), {plan} ({source})\n")
    ok = [r for r in records if r["status"] == "ok"]

    def number(value, fmt):
        return "-" if value is None else format(value, fmt)

    times = [[f"{r['fit_time_s'] * 1000:.1f}", f"{r['predict_time_s'] * 1000:.1f}"] for r in ok]
    if ok and task == "regression":
        rows = [[r["learner"], f"{r['rmse_mean']:.4g} ± {r['rmse_std']:.2g}", number(r["mae_mean"], ".4g"),
                 number(r["r2_mean"], ".3f"), *t] for r, t in zip(ok, times)]
        print(table(rows, ["learner", "RMSE", "MAE", "R^2", "fit ms/fold", "predict ms/fold"]))
        print(f"\nRMSE, MAE and R^2: mean over the test folds; predicting the mean training label gives "
              f"RMSE {ok[0]['prior_rmse_mean']:.4g}")
    elif ok:
        rows = [[r["learner"], f"{100 * r['accuracy_mean']:.1f} ± {100 * r['accuracy_std']:.1f}",
                 "-" if r["auc_mean"] is None else f"{100 * r['auc_mean']:.1f}", number(r["log_loss_mean"], ".3f"),
                 *t] for r, t in zip(ok, times)]
        print(table(rows, ["learner", "accuracy %", "AUC %", "log loss", "fit ms/fold", "predict ms/fold"]))
        print(f"\nlog loss: mean over the test folds; predicting the training class frequencies "
              f"(constant prior) gives {ok[0]['prior_log_loss_mean']:.3f}")
        if len(np.unique(data.y)) > 2:
            print("AUC: one-vs-rest, averaged over the classes of each test fold")
        for r in ok:
            if r["auc_note"]:
                print(f"AUC {r['learner']}: {r['auc_note']}")
    for learner, reason in skipped:
        print(f"skipped {learner}: {reason}")


def cmd_evaluate(args):
    check_jobs(args)
    data = load(args)
    task, note = decide_task(args, data)
    if note:
        print(note, file=sys.stderr)
    names = learner_names(args.model, task)
    positive, note = positive_class(args, data) if task == "classification" else (None, None)
    splits, n_folds, repeats, source = plan_folds(args, data, task)
    if note:
        print(note, file=sys.stderr)
    if not args.quiet:
        print(estimate_note(names, data, splits, args.jobs), file=sys.stderr)
    quiet = args.quiet or args.json or args.csv
    with Progress(len(names) * len(splits), enabled=False if quiet else None,
                  pending="time left known after one fold of each learner") as bar, \
            limited_threads(thread_budget(args.jobs, len(splits))):
        results, skipped = run_learners(names, data, splits, positive, args, bar, task)
    common = {"dataset": data.name, "folds": n_folds, "repeats": repeats, "fold_source": source,
              "positive_class": positive}
    records = _records(names, results, skipped, splits, data, common, n_folds, task)
    if args.json:
        print_json(records)
    elif args.csv:
        _print_csv(records)
    else:
        plan = (f"{repeats} x {n_folds}-fold bag-level CV" if data.split is None or args.folds is not None
                else "bag-level train/test evaluation")
        _print_text(records, skipped, data, positive, plan, source, task)
    sys.stdout.flush()
    for line in warning_lines(results, len(splits)):
        print(line, file=sys.stderr)
    if not results:
        raise CLIError(f"no learner could run on {data.name}"
                       + (f": {skipped[0][1]}" if len(skipped) == 1 else " (reasons above)"))
    return 0
