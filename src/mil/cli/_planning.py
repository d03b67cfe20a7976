"""Planning an evaluation: classes or real values, which label is positive, which folds test which bags."""

import os
import re

import numpy as np

from mil.cli._common import CLIError, quoted
from mil.evaluation import fold_indices, table_splits

__all__ = ["decide_task", "plan_folds", "positive_class", "read_folds_file"]

#: Integer labels with more distinct values than this (and than a quarter of the bags) are
#: neither taken as classes nor as a regression without ``--task``.
_MANY_CLASSES = 10


def _as_numbers(y):
    """The labels as float64 when every one is a number (strings such as "3.7" too), else None."""
    y = np.asarray(y)
    if y.dtype.kind == "b":
        return None
    if y.dtype.kind in "iuf":
        return y.astype(np.float64)
    try:
        return np.array([float(v) for v in y.tolist()], dtype=np.float64)
    except (TypeError, ValueError):
        return None


def decide_task(args, data):
    """``"classification"`` or ``"regression"``, with a note to print (None: nothing to say).

    ``--task`` decides when given. Otherwise labels that are real numbers with
    a fractional part make a regression (said in the note); numbers that are
    all integers stay classes unless they take more than ten distinct values
    and more than a quarter of the bags, when the user is asked to choose.
    A regression's labels become float64 in `data`.
    """
    task = getattr(args, "task", None) or "auto"
    numbers = _as_numbers(data.y)
    if task == "classification":
        return task, None
    if task == "regression":
        if numbers is None:
            bad = next(v for v in np.asarray(data.y).tolist() if _as_numbers(np.array([v])) is None)
            raise CLIError(f"--task regression needs numeric labels; {data.name} has the label {bad!r}")
        data.y = numbers
        return task, None
    if numbers is None or not np.isfinite(numbers).all():
        return "classification", None
    distinct = np.unique(numbers)
    span = f"{len(distinct)} distinct values from {distinct[0]:g} to {distinct[-1]:g}"
    if np.any(numbers != np.round(numbers)):
        data.y = numbers
        return "regression", (f"mil: note: the labels of {data.name} are real numbers ({span}): a regression, "
                              f"scored by RMSE, MAE and R^2 (--task classification takes them as classes)")
    if len(distinct) > max(_MANY_CLASSES, len(numbers) // 4):
        raise CLIError(f"the labels of {data.name} are integers with {span}: pass --task regression to "
                       f"predict them as numbers, or --task classification to take each value as a class")
    return "classification", None


_STANDARD_LABELS = ({0, 1}, {-1, 1}, {False, True})


def positive_class(args, data):
    """The positive label (None: more than two classes) and a note to print.

    The rule of the Python API (:func:`mil.utils.validation.positive_index`):
    the labels {0, 1}, {-1, 1} and {False, True} make the larger one
    positive; any other pair needs ``--positive-class``, else an error
    names it. The exception is a file that declares the order: an ARFF
    file's nominal class attribute with two values makes the second one
    positive, as Weka does (``@attribute class {inactive,active}``: active).
    """
    classes = np.unique(data.y)
    if args.positive_class is None:
        if len(classes) != 2:
            return None, None
        standard = any(set(classes.tolist()) == s for s in _STANDARD_LABELS)
        declared = data.declared
        positive = None
        if declared is not None and len(declared) == 2:
            positive = next((c for c in classes.tolist() if str(c) == declared[1]), None)
        if positive is not None:
            if standard and positive == classes[1]:
                return None, None  # the file and the implicit rule agree
            return positive, (f"mil: note: {data.name} declares the classes {{{declared[0]},{declared[1]}}}; "
                              f"the second, {positive!r}, is the positive class (Weka's order; a bag is "
                              f"positive when one of its instances is); change with --positive-class")
        if standard:
            return None, None  # the learners' own rule: the larger label
        negative, positive = classes.tolist()
        raise CLIError(f"the labels of {data.name} are {negative!r} and {positive!r}; name the positive "
                       f"class (a bag is positive when one of its instances is) with --positive-class "
                       f"{quoted(positive)} or --positive-class {quoted(negative)}; only the labels 0/1, "
                       f"-1/1 and False/True have an implicit one")
    if len(classes) != 2:
        raise CLIError(f"--positive-class applies to two-class data; {data.name} has {len(classes)} "
                       f"classes: {', '.join(repr(c) for c in classes.tolist()[:10])}")
    for c in classes.tolist():
        if str(c) == args.positive_class:
            return c, None
    raise CLIError(f"--positive-class {args.positive_class!r} is not one of the labels of {data.name}: "
                   f"{', '.join(repr(c) for c in classes.tolist())}")


def _fold_number(value):
    """``--folds`` value: an int k (k-fold CV) or a path (a folds file)."""
    text = value.strip()
    if text.lstrip("+-").isdigit():
        return int(text)
    return text


def read_folds_file(path, data):
    """One fold number per bag, from a folds file (see the --folds help)."""

    if not os.path.isfile(path):
        raise CLIError(f"--folds {path!r} is neither a number of folds nor an existing file")
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [(no, line.strip()) for no, line in enumerate(fh, start=1)]
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read the folds file {path}: {exc}") from None
    rows = [(no, [f.strip() for f in re.split(r"[,;\t]|\s+", line) if f.strip()])
            for no, line in lines if line and not line.startswith("#")]
    if rows and rows[0][1] and not rows[0][1][-1].lstrip("+-").isdigit():
        rows = rows[1:]  # a header line such as "bag,fold" or "fold"
    if not rows:
        raise CLIError(f"the folds file {path} holds no folds")
    widths = {len(fields) for _, fields in rows}
    if len(widths) != 1 or widths.pop() not in (1, 2):
        no, fields = next((no, f) for no, f in rows if len(f) != len(rows[0][1]) or len(f) > 2)
        raise CLIError(f"{path}: line {no} has {len(fields)} values; give one fold number per line "
                       f"(bags in file order) or two values per line (bag id, fold number)")

    def fold(no, text):
        if not text.lstrip("+-").isdigit():
            raise CLIError(f"{path}: line {no}: {text!r} is not a fold number (an integer)")
        return int(text)

    n = len(data.y)
    raw_ids = data.bags.ids if data.bags.ids is not None else np.arange(n)
    integer_ids = raw_ids.dtype.kind in "iu"

    def key(bag_id):  # "007" in a file names the integer id 7
        text = str(bag_id).strip()
        return str(int(text)) if integer_ids and text.lstrip("+-").isdigit() else text

    ids = [key(i) for i in raw_ids.tolist()]
    position = {bag_id: b for b, bag_id in enumerate(ids)}
    folds = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    if len(rows[0][1]) == 1:
        if len(rows) != n:
            raise CLIError(f"the folds file {path} has {len(rows)} fold numbers but {data.name} has "
                           f"{n} bags; give one per bag, in the order of the bags in the data file "
                           f"(or lines 'bag id, fold')")
        # The bags' order in the file (CSV: the loader sorts them by id).
        where = range(n) if data.file_order is None else [position[key(i)] for i in data.file_order]
        for (no, fields), b in zip(rows, where):
            folds[b] = fold(no, fields[0])
    else:
        if len(position) != n:
            raise CLIError(f"{data.name} has bags with the same id; give the folds as one fold number "
                           f"per line, in the order of the bags in the file")
        for no, (bag_id, value) in rows:
            bag_id = key(bag_id)
            if bag_id not in position:
                raise CLIError(f"{path}: line {no}: bag {bag_id!r} is not in {data.name}")
            if folds[position[bag_id]] != np.iinfo(np.int64).min:
                raise CLIError(f"{path}: line {no}: bag {bag_id!r} is given a fold twice")
            folds[position[bag_id]] = fold(no, value)
        missing = np.flatnonzero(folds == np.iinfo(np.int64).min)
        if missing.size:
            raise CLIError(f"the folds file {path} gives no fold to bag {ids[missing[0]]!r} "
                           f"({missing.size} bag(s) without a fold)")
    numbers = np.unique(folds)
    if numbers.size < 2:
        raise CLIError(f"the folds file {path} puts every bag in fold {numbers[0]}; "
                       f"cross-validation needs at least two folds")
    for k in numbers:
        if len(np.unique(data.y[folds != k])) < 2:
            raise CLIError(f"with the folds file {path}, the training bags of fold {k} (all bags outside "
                           f"it) hold a single class; a learner needs two")
    return folds


def plan_folds(args, data, task="classification"):
    """The CV splits and a description of exactly which folds they are.

    A regression's random folds are shuffled k-fold (no classes to stratify).
    """
    repeats = 1 if args.repeats is None else args.repeats
    if repeats < 1:
        raise CLIError(f"--repeats must be at least 1, got {repeats}")
    if data.split is not None and args.folds is None:
        if args.repeats not in (None, 1):
            raise CLIError(f"{data.name} has one predefined train/test split; --repeats needs --folds K "
                           f"(random folds over all its bags)")
        train, test = data.split
        return [(np.asarray(train), np.asarray(test))], 1, 1, \
            f"the predefined split: {len(train)} training and {len(test)} test bags"
    folds = _fold_number("10" if args.folds is None else args.folds)
    if isinstance(folds, str):
        if args.repeats not in (None, 1):
            raise CLIError("--repeats applies to random or published folds; a folds file gives one "
                           "assignment (run once per file for more)")
        table = read_folds_file(folds, data)
        k = len(np.unique(table))
        return table_splits(table), k, 1, f"folds from {folds}"
    if folds < 2:
        raise CLIError(f"--folds must be at least 2, got {folds}")
    published = data.published
    if published is not None and folds == 10 and repeats <= published.shape[0] \
            and len(np.unique(published)) == 10:
        which = "repetition 0" if repeats == 1 else f"repetitions 0-{repeats - 1}"
        return fold_indices(data.y, 10, repeats, fold_table=published), 10, repeats, \
            f"published folds, {which}"
    seed = 0 if args.seed is None else args.seed
    seeds = f"seed {seed}" if repeats == 1 else f"seeds {seed}-{seed + repeats - 1}"
    if task == "regression":
        if len(data.y) < folds:
            raise CLIError(f"--folds {folds} is more than the {len(data.y)} bags of {data.name}")
        return fold_indices(data.y, folds, repeats, seed, stratify=False), folds, repeats, \
            f"shuffled random folds, {seeds}"
    counts = np.unique(data.y, return_counts=True)[1]
    if counts.min() < folds:
        raise CLIError(f"--folds {folds} is more than the {counts.min()} bags of the smallest class")
    why = ""
    if published is not None:
        why = (f"; the published folds are 10-fold with {published.shape[0]} repetitions"
               if folds == 10 else "; the published folds are 10-fold")
    return fold_indices(data.y, folds, repeats, seed), folds, repeats, \
        f"stratified random folds, {seeds}{why}"

