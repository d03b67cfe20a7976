"""The ``mil`` command line: evaluate learners on bags, show the configuration.

``mil`` with no arguments runs the quick default job (a few fast, strong
learners: :data:`mil._learners.DEFAULT_JOB`) on the shipped Musk1 with its
published 10-fold assignment; ``--model all`` runs every learner. ``mil evaluate`` takes a user's
ARFF or long CSV file as it is (word labels, NaN, more than two classes): a
learner that cannot take the data is reported as skipped with its reason and
the others run. User errors are one line on stderr and exit status 2.
"""

import argparse
import csv
import io
import json
import os
import re
import sys
import textwrap

import numpy as np

__all__ = ["main"]


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Data:
    """A data set as the command line uses it: bags with ids, labels, folds."""

    def __init__(self, bags, y, name, published=None, file_order=None, declared=None, split=None):
        self.bags, self.y, self.name = bags, y, name
        self.published = published  # (repetitions, n_bags) fold table of a shipped set
        self.file_order = file_order  # CSV: bag ids in the order they first appear in the file
        self.declared = declared  # ARFF: the class values in the order the file declares them
        self.split = split  # MILWEB: the predefined (train, test) bag indices


def _csv_bag_order(path, bag, delimiter, encoding):
    """Bag ids (strings) in the order they first appear in a long CSV file."""
    from mil.datasets._arff import read_text

    seen = {}
    reader = csv.reader(io.StringIO(read_text(path, encoding), newline=""), delimiter=delimiter)
    column = [h.strip() for h in next(reader)].index(bag)
    for row in reader:
        if len(row) > column and row[column].strip():
            seen.setdefault(row[column].strip(), None)
    return list(seen)


def _milweb_user(name):
    """1..9 for ``milweb1`` .. ``milweb9`` (``milweb``: user 1), else None."""
    key = name.lower()
    if key == "milweb":
        return 1
    digits = key.removeprefix("milweb")
    if key.startswith("milweb") and digits.isdigit() and 1 <= int(digits) <= 9:
        return int(digits)
    return None


def _shipped_names():
    from mil.datasets import DATASETS

    return ", ".join([*DATASETS, "milweb1..milweb9"])


def _load(args):
    from mil.bags import Bags
    from mil.datasets import DATASETS, load_arff, load_csv, load_dataset, load_milweb
    from mil.utils.validation import check_bags

    dataset = args.dataset
    encoding = getattr(args, "encoding", None)
    csv_options = {"--bag-column": args.bag_column, "--label-column": args.label_column,
                   "--delimiter": args.delimiter}
    user = _milweb_user(dataset) if not os.path.exists(dataset) else None
    shipped = dataset.lower() in DATASETS or user is not None
    is_csv = not dataset.lower().endswith(".arff") and not shipped
    if not is_csv:
        given = [opt for opt, value in csv_options.items() if value is not None]
        if given:
            raise CLIError(f"{given[0]} applies to CSV files; {dataset} is "
                           + ("a shipped data set" if shipped else "an ARFF file"))
    if shipped and encoding is not None:
        raise CLIError(f"--encoding applies to files; {dataset} is a shipped data set")
    if dataset.lower() in DATASETS:
        d = load_dataset(dataset)
        return _Data(d.bags, d.target, dataset.lower(), published=d.folds)
    if user is not None:
        if dataset.lower() == "milweb":
            print("mil: note: milweb is MILWEB user 1; milweb1..milweb9 name the nine users",
                  file=sys.stderr)
        d = load_milweb(user, as_bags=True)
        print(f"mil: note: {d.name}'s bags are sparse: the learners with a scale parameter run with "
              f"scale=None (the published MILWEB protocol); learners that need dense bags are skipped",
              file=sys.stderr)
        return _Data(d.bags, d.target, d.name, split=(d.train_indices, d.test_indices))
    if not os.path.exists(dataset):
        raise CLIError(f"unknown data set {dataset!r}: not a shipped name "
                       f"({_shipped_names()}) nor an existing file")
    encoding = encoding or "utf-8"
    bag, label = args.bag_column or "bag", args.label_column or "label"
    declared = delimiter = None
    try:
        if is_csv:
            delimiter = _delimiter(args.delimiter, dataset, encoding, bag)
            d = load_csv(dataset, bag=bag, label=label, delimiter=delimiter, encoding=encoding)
            order = _csv_bag_order(dataset, bag, delimiter, encoding)
        else:
            d = load_arff(dataset, encoding=encoding)
            order = None  # the loader keeps the file's order
            if d.get("target_names") is not None:
                declared = [str(v) for v in d.target_names]
    except (OSError, ValueError, TypeError, UnicodeDecodeError) as exc:
        text = str(exc)
        text = text[len(f"{dataset}: "):] if text.startswith(f"{dataset}: ") else text
        if is_csv:
            text += _column_hint(text, args, dataset, encoding, delimiter)
        raise CLIError(f"cannot read {dataset}: {text}") from None
    name = os.path.basename(dataset)
    # Bags that carry the file's ids, so that error messages name bags as the file does.
    bags = Bags(d.bags.instances, d.bags.offsets, ids=np.asarray(d.bag_ids))
    try:
        check_bags(bags, allow_nan=True, name=name)
    except ValueError as exc:
        raise CLIError(f"{exc}") from None
    if len(np.unique(d.target)) < 2:
        raise CLIError(f"{dataset} holds a single class; evaluation needs two")
    return _Data(bags, d.target, name, file_order=order, declared=declared)


def _column_hint(text, args, path, encoding, delimiter):
    """What to pass when the loader found no bag or label column."""
    if "no bag column" not in text and "no label column" not in text:
        return ""
    try:
        if delimiter is not None and len(_header_fields(path, encoding, delimiter)[1]) < 3:
            for candidate in _SNIFFED:
                if candidate != delimiter and len(_header_fields(path, encoding, candidate)[1]) >= 3:
                    return f"; the header splits on {_shown(candidate)}: pass --delimiter {_shown(candidate)}"
    except (ValueError, LookupError):
        pass
    if "no bag column" in text and args.bag_column is None:
        return "; name the bag-id column with --bag-column"
    if "no label column" in text and args.label_column is None:
        return "; name the label column with --label-column"
    return ""


def _shown(delimiter):
    return {"\t": "tab", " ": "space"}.get(delimiter, f"'{delimiter}'")


_SNIFFED = (",", ";", "\t", "|")


def _first_lines(path, encoding, n_lines=20):
    """The first `n_lines` non-empty lines of a text file (read no further)."""
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    lines = []
    with open(path, encoding=enc, newline="") as fh:
        for line in fh:
            if line.strip():
                lines.append(line.rstrip("\r\n"))
                if len(lines) == n_lines:
                    break
    return lines


def _header_fields(path, encoding, delimiter, lines=None):
    """Field counts of the first non-empty lines split on `delimiter`, and the header."""
    rows = list(csv.reader(_first_lines(path, encoding) if lines is None else lines, delimiter=delimiter))
    return [len(r) for r in rows], ([h.strip() for h in rows[0]] if rows else [])


def _delimiter(value, path, encoding="utf-8", bag="bag"):
    """The field separator: `value`, else the one the file's first lines agree on.

    Sniffing tries comma, semicolon, tab and bar: a candidate must split the
    header into at least three fields (bag, label, a feature) and every one
    of the first lines into as many. Among several, the one whose header
    holds the bag column wins, then the order above. When none fits, the
    file is read with commas (tabs for .tsv/.tab) and a missing column's
    error says which separator would split the header.
    """
    if value is not None:
        value = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " "}.get(value, value)
        if len(value) != 1:
            raise CLIError(f"--delimiter must be one character (or tab, comma, semicolon, space); got {value!r}")
        return value
    default = "\t" if path.lower().endswith((".tsv", ".tab")) else ","
    try:
        lines = _first_lines(path, encoding)
    except (LookupError, UnicodeDecodeError):
        return default  # the loader then says what is wrong with the encoding
    fits = []
    for candidate in _SNIFFED:
        counts, header = _header_fields(path, encoding, candidate, lines)
        if counts and counts[0] >= 3 and len(set(counts)) == 1:
            fits.append((bag not in header, candidate != default, candidate))
    return min(fits)[2] if fits else default


def _table(rows, columns):
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()
    out = [line, "-" * len(line)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def _check_jobs(args):
    if args.jobs is not None and args.jobs == 0:
        raise CLIError("--jobs must be a positive number of workers, or negative (-1: one per core); got 0")


def _cmd_info(args):
    from mil._config import show_config

    show_config()
    return 0


_STANDARD_LABELS = ({0, 1}, {-1, 1}, {False, True})


def _positive_class(args, data):
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
                       f"{_quoted(positive)} or --positive-class {_quoted(negative)}; only the labels 0/1, "
                       f"-1/1 and False/True have an implicit one")
    if len(classes) != 2:
        raise CLIError(f"--positive-class applies to two-class data; {data.name} has {len(classes)} "
                       f"classes: {', '.join(repr(c) for c in classes.tolist()[:10])}")
    for c in classes.tolist():
        if str(c) == args.positive_class:
            return c, None
    raise CLIError(f"--positive-class {args.positive_class!r} is not one of the labels of {data.name}: "
                   f"{', '.join(repr(c) for c in classes.tolist())}")


def _quoted(label):
    text = str(label)
    return text if re.fullmatch(r"[\w.+-]+", text) else repr(text)


def _fold_number(value):
    """``--folds`` value: an int k (k-fold CV) or a path (a folds file)."""
    text = value.strip()
    if text.lstrip("+-").isdigit():
        return int(text)
    return text


def _read_folds_file(path, data):
    """One fold number per bag, from a folds file (see the --folds help)."""
    import re

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


def _plan_folds(args, data):
    """The CV splits and a description of exactly which folds they are."""
    from mil.evaluation import fold_indices, table_splits

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
        table = _read_folds_file(folds, data)
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
    counts = np.unique(data.y, return_counts=True)[1]
    if counts.min() < folds:
        raise CLIError(f"--folds {folds} is more than the {counts.min()} bags of the smallest class")
    seed = 0 if args.seed is None else args.seed
    seeds = f"seed {seed}" if repeats == 1 else f"seeds {seed}-{seed + repeats - 1}"
    why = ""
    if published is not None:
        why = (f"; the published folds are 10-fold with {published.shape[0]} repetitions"
               if folds == 10 else "; the published folds are 10-fold")
    return fold_indices(data.y, folds, repeats, seed), folds, repeats, \
        f"stratified random folds, {seeds}{why}"


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


def _make_learner(learner, positive, seed, sparse=False):
    """The registry's learner with the command line's settings.

    `seed` (``--seed``, default 0) goes to the randomised learners only
    (:data:`mil._learners.SEED_PARAMS`), so their runs are reproducible;
    the deterministic ones keep their defaults (the trees' ``random_state=None``
    breaks ties between features by the lowest index, as in Python).
    """
    from mil._learners import make_learner

    names = make_learner(learner).get_params(deep=False)
    params = {}
    if positive is not None and "positive_class" in names:
        params["positive_class"] = positive
    if sparse and "scale" in names:
        params["scale"] = None  # sparse bags stay sparse: no centring (MILWEB's published protocol)
    return make_learner(learner, seed=seed, **params)


def _run_learners(names, data, splits, positive, args, progress):
    """Cross-validate each learner; ``(results, skipped)`` in the order of `names`.

    The first fold of every learner runs first: it says which learners
    cannot take the data (skipped with the reason) and how long a fold of
    each one takes, so the progress can estimate the time left from the
    folds still to come weighted by their learner's cost. The other folds
    follow learner by learner. Folds are independent (each fits a clone),
    so the results are those of one :func:`mil.evaluation.evaluate` call over
    all the splits.
    """
    from joblib import effective_n_jobs

    from mil.evaluation import _merge_warnings, evaluate

    first, rest = splits[:1], splits[1:]
    started, skipped = [], []
    for learner in names:
        progress.set_label(f"{learner} (fold 1)")
        t0 = progress.clock()
        try:
            est = _make_learner(learner, positive, args.seed, data.bags.is_sparse)
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
            res["warnings"] = _merge_warnings(res["warnings"], more["warnings"])
        results.append((learner, res))
    skipped.sort(key=lambda item: names.index(item[0]))
    return results, skipped


def _auc_note(learner, auc, splits, y, n_classes):
    """Why a learner's AUC is missing or averaged over fewer folds (None: every fold has one)."""
    from mil._learners import make_learner

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


def _per_fold(res, splits, n_folds):
    """Scores of every fold for --json (None where a score is undefined)."""
    def value(x):
        return float(x) if np.isfinite(x) else None

    return [{"repeat": i // n_folds, "fold": i % n_folds, "n_test": int(len(test)),
             "accuracy": float(res["accuracy"][i]), "auc": value(res["auc"][i]),
             "log_loss": value(res["log_loss"][i]), "fit_time_s": float(res["fit_time"][i])}
            for i, (_, test) in enumerate(splits)]


def _warning_lines(results, n_folds):
    """One line per learner and distinct warning its folds raised, naming the learner.

    A solver that stops at its iteration limit (scikit-learn's
    ``ConvergenceWarning``) is said as such; deprecation notices of the
    libraries are left out, as Python's default filters do.
    """
    from sklearn.exceptions import ConvergenceWarning

    lines = []
    for learner, res in results:
        for category, message, n in res.get("warnings") or ():
            if issubclass(category, (DeprecationWarning, PendingDeprecationWarning)):
                continue
            first = message.strip().splitlines()[0] if message.strip() else ""
            where = f"in {n} of {n_folds} folds"
            if issubclass(category, ConvergenceWarning):
                lines.append(f"note: {learner}: a scikit-learn solver stopped at its iteration limit {where} "
                             f"(ConvergenceWarning: {first}); the scores are those of the stopped solutions")
            else:
                lines.append(f"warning: {learner}: {category.__name__} {where}: {first}")
    return lines


def _learner_names(model):
    """The learners of ``--model``: the default job without it, every one for ``all``."""
    from mil._learners import DEFAULT_JOB, LEARNERS, available_learners

    unknown = [n for n in model or () if n not in LEARNERS and n != "all"]
    if unknown:
        raise CLIError(f"unknown learner {unknown[0]!r}; choose from {', '.join(LEARNERS)}, or all "
                       f"(the list with each learner's cost: mil evaluate --help)")
    available = available_learners()
    if not model:
        names = [n for n in DEFAULT_JOB if n in available]
    else:
        names = []
        for n in model:
            for name in (available if n == "all" else [n]):
                if name not in names:
                    names.append(name)
    if not names:
        raise CLIError("no learner is available in this installation")
    return names


def _estimate_note(names, data, n_fits, jobs):
    """One line, before a job starts: its estimated time, and the learners that dominate it."""
    from joblib import effective_n_jobs

    from mil._costs import estimate_seconds
    from mil._progress import format_duration

    workers = max(min(effective_n_jobs(jobs), n_fits), 1)
    total, per = estimate_seconds(names, data.bags.n_instances, data.bags.n_features, n_fits, workers)
    costly = sorted(((t, n) for n, t in per.items() if t is not None and t >= 0.25 * total and t >= 60),
                    reverse=True)
    why = [f"mostly {', '.join(f'{n} ({format_duration(t)})' for t, n in costly)}"] if costly else []
    unmeasured = [n for n, t in per.items() if t is None]
    if unmeasured:
        why.append(f"{', '.join(unmeasured)} not counted")
    why.append("an estimate from each learner's fold time measured on a 2-core x86-64, scaled to "
               "these data; the progress refines it")
    return (f"mil: {len(names)} learner{'s' if len(names) > 1 else ''} x {n_fits} folds on "
            f"{len(data.y)} bags ({data.bags.n_instances} instances x {data.bags.n_features} features): "
            f"about {format_duration(max(total, 1.0))} ({'; '.join(why)})")


def _cmd_evaluate(args):
    from mil._progress import Progress

    _check_jobs(args)
    names = _learner_names(args.model)
    data = _load(args)
    positive, note = _positive_class(args, data)
    splits, n_folds, repeats, source = _plan_folds(args, data)
    if note:
        print(note, file=sys.stderr)
    if not args.quiet:
        print(_estimate_note(names, data, len(splits), args.jobs), file=sys.stderr)
    quiet = args.quiet or args.json or args.csv
    with Progress(len(names) * len(splits), enabled=False if quiet else None,
                  pending="time left known after one fold of each learner") as bar:
        # The folds' warnings (a solver at its iteration limit warns once per fit) are
        # caught per learner and said after the table, once each, naming the learner.
        results, skipped = _run_learners(names, data, splits, positive, args, bar)
    common = {"dataset": data.name, "folds": n_folds, "repeats": repeats, "fold_source": source,
              "positive_class": positive}
    n_classes = len(np.unique(data.y))
    records = [{
        "learner": learner,
        "status": "ok",
        "accuracy_mean": float(res["accuracy"].mean()),
        "accuracy_std": float(res["accuracy"].std()),
        "auc_mean": float(np.nanmean(res["auc"])) if np.isfinite(res["auc"]).any() else None,
        "auc_note": _auc_note(learner, res["auc"], splits, data.y, n_classes),
        "log_loss_mean": float(np.mean(res["log_loss"])) if np.isfinite(res["log_loss"]).all() else None,
        "prior_log_loss_mean": float(np.mean(res["prior_log_loss"])),
        "fit_time_s": float(res["fit_time"].mean()),
        "predict_time_s": float(res["predict_time"].mean()),
        "reason": None,
        **common,
        "per_fold": _per_fold(res, splits, n_folds),
    } for learner, res in results]
    records += [{"learner": learner, "status": "skipped", "accuracy_mean": None, "accuracy_std": None,
                 "auc_mean": None, "auc_note": None, "log_loss_mean": None, "prior_log_loss_mean": None,
                 "fit_time_s": None, "predict_time_s": None, "reason": reason,
                 **common, "per_fold": None} for learner, reason in skipped]
    records.sort(key=lambda r: names.index(r["learner"]))  # the order the learners were asked in
    if args.json:
        print(json.dumps(records, indent=2, default=str))
    elif args.csv:
        buf = io.StringIO()
        # One row per learner: the per-fold scores are in --json only.
        writer = csv.DictWriter(buf, fieldnames=[k for k in records[0] if k != "per_fold"],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)
        print(buf.getvalue(), end="")
    else:
        classes = np.unique(data.y)
        labels = f"{len(classes)} classes" if len(classes) > 2 else "two classes"
        if positive is not None:
            labels += f", positive {positive!r}"
        plan = (f"{repeats} x {n_folds}-fold bag-level CV" if data.split is None or args.folds is not None
                else "bag-level train/test evaluation")
        print(f"{data.name}: {len(data.y)} bags ({labels}), {plan} ({source})\n")
        rows = [[r["learner"], f"{100 * r['accuracy_mean']:.1f} ± {100 * r['accuracy_std']:.1f}",
                 "-" if r["auc_mean"] is None else f"{r['auc_mean']:.3f}",
                 "-" if r["log_loss_mean"] is None else f"{r['log_loss_mean']:.3f}",
                 f"{r['fit_time_s'] * 1000:.1f}", f"{r['predict_time_s'] * 1000:.1f}"]
                for r in records if r["status"] == "ok"]
        if rows:
            print(_table(rows, ["learner", "accuracy %", "AUC", "log loss", "fit ms/fold",
                                "predict ms/fold"]))
            prior = next(r["prior_log_loss_mean"] for r in records if r["status"] == "ok")
            print(f"\nlog loss: mean over the test folds; predicting the training class frequencies "
                  f"(constant prior) gives {prior:.3f}")
            if n_classes > 2:
                print("AUC: one-vs-rest, averaged over the classes of each test fold")
            for r in records:
                if r["status"] == "ok" and r["auc_note"]:
                    print(f"AUC {r['learner']}: {r['auc_note']}")
        for learner, reason in skipped:
            print(f"skipped {learner}: {reason}")
    sys.stdout.flush()
    for line in _warning_lines(results, len(splits)):
        print(line, file=sys.stderr)
    if not results:
        raise CLIError(f"no learner could run on {data.name}"
                       + (f": {skipped[0][1]}" if len(skipped) == 1 else " (reasons above)"))
    return 0


def _write_plots(args, make_panels, filename, what):
    """Write a PNG if matplotlib is there; otherwise say how to get plots."""
    from mil.plotting import plotting_available, save_line_plot

    if args.no_plots:
        return
    if args.plot_dir is None:
        if not getattr(args, "json", False):
            print(f"\n(for the {what} plot as a PNG file, add --plot-dir DIR)")
        return
    # With --json, stdout holds only the JSON document.
    out = sys.stderr if getattr(args, "json", False) else sys.stdout
    if not plotting_available():
        print(f"\n(no {what} plot: matplotlib is not installed; "
              "pip install 'scikit-mil[plot]' to get plots)", file=out)
        return
    os.makedirs(args.plot_dir, exist_ok=True)
    path = save_line_plot(os.path.join(args.plot_dir, filename), **make_panels())
    print(f"\nplot written: {path}", file=out)


def _print_reproduction(args, result, title, extra=None):
    from mil.reproduce import accuracy_table

    rows = accuracy_table(result)
    if args.json:
        print(json.dumps({
            "title": title, "quick": result.quick,
            "accuracy": {l: {d: [float(v) for v in result.accuracy[l][d]] for d in result.datasets}
                         for l in result.learners},
            "seconds": {l: {d: float(result.seconds[l][d]) for d in result.datasets}
                        for l in result.learners},
            **(extra or {}),
        }, indent=2))
        return
    print(f"{title}: bag-level accuracy %, mean ± std over the folds"
          + (f" (quick: {result.quick_note})" if result.quick
             else f" ({getattr(result, 'protocol', 'published folds, repetition 0')})") + "\n")
    print(_table(rows, ["learner", *result.datasets]))
    if any(row[0].endswith(" *") for row in rows):
        print(f"\n* randomised learner: mean over seeds 0-{result.seeds - 1} of the fold means, "
              "[lowest-highest seed mean]")
    total = sum(sum(v.values()) for v in result.seconds.values())
    print(f"\ntotal time: {total:.1f} s")


def _cmd_reproduce_trees(args):
    from mil._progress import Progress
    from mil.reproduce import TREE_LEARNERS, reproduce_trees

    datasets, n_sets, learners = _reproduction_options(args, TREE_LEARNERS)
    with Progress(n_sets * _seeded_folds(args, learners), enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_trees(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                                 n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds)
    staged = {"staged_error": {name: {k: [float(v) for v in c] for k, c in curves.items()}
                               for name, curves in result.staged.items()},
              **_seed_json(result)}
    _print_reproduction(args, result, ", ".join(result.learners), staged)
    if result.staged:
        def panels():
            return {"panels": [{
                "title": f"GDBT-MI on {name}", "xlabel": "boosting rounds", "ylabel": "bag error",
                "series": {k: (np.arange(1, len(v) + 1), v) for k, v in curves.items()},
            } for name, curves in result.staged.items()], "suptitle": "train and test error against rounds "
                                                                       "(mean over CV folds)"}
        _write_plots(args, panels, "gdbt_mi_error.png", "boosting error")
    return 0


def _reproduction_options(args, known, default=None):
    """The data sets, their count and the learners of a ``mil reproduce`` command (checked)."""
    _check_jobs(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    learners = tuple(args.learners or default or known)
    bad = [name for name in learners if name not in known]
    if bad:
        raise CLIError(f"unknown learner {bad[0]!r}; mil reproduce {args.target} runs: {', '.join(known)}")
    return datasets, n_sets, learners


def _seeded_folds(args, learners):
    """Progress steps of a seeded reproduction: folds x runs (seeds for the randomised learners)."""
    from mil._learners import SEED_PARAMS

    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}")
    folds = 2 if args.quick else 10 * args.repeats
    return folds * sum(args.seeds if name in SEED_PARAMS else 1 for name in learners)


def _seed_json(result):
    """The AUCs and per-seed means of a seeded reproduction, for --json."""
    def floats(values):
        return [None if np.isnan(v) else float(v) for v in values]

    return {"seeds": result.seeds,
            "auc": {l: {d: floats(a) for d, a in per.items()} for l, per in result.auc.items()},
            "seed_accuracy": {l: {d: floats(a) for d, a in per.items()} for l, per in result.seed_accuracy.items()},
            "seed_auc": {l: {d: floats(a) for d, a in per.items()} for l, per in result.seed_auc.items()}}


def _print_seed_note(result):
    if result.seeds > 1 and result.seed_accuracy:
        print(f"\n* randomised learner: mean over seeds 0-{result.seeds - 1} of the fold means, "
              "[lowest-highest seed mean], accuracy then (AUC)")


def _set_params(args):
    """The ``--set NAME=VALUE`` parameters as a dict (values read as Python literals, else strings)."""
    import ast

    params = {}
    for item in getattr(args, "set_params", None) or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise CLIError(f"--set takes NAME=VALUE (a parameter name, '=', a value); got {item!r}")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            value = text.strip()
        params[name.strip()] = value
    return params


def _check_set_params(params, learners):
    """A clear error when a ``--set`` parameter is not one of a learner's."""
    from mil._learners import make_learner

    for name in learners:
        try:
            make_learner(name, **params)
        except (TypeError, ValueError) as exc:
            raise CLIError(f"--set {', '.join(params)}: not accepted by {name!r} ({exc})") from None


def _params_note(params):
    return "" if not params else " with " + ", ".join(f"{k}={v!r}" for k, v in params.items())


def _cmd_reproduce_kernels(args):
    from mil._learners import available_learners
    from mil._progress import Progress
    from mil.reproduce import KERNEL_LEARNERS, kernel_table, reproduce_kernels

    datasets, n_sets, learners = _reproduction_options(
        args, KERNEL_LEARNERS, [n for n in KERNEL_LEARNERS if n in available_learners()])
    missing = [name for name in learners if name not in available_learners()]
    if missing:
        raise CLIError(f"learner {missing[0]!r} is not available: the EMD needs POT "
                       '(pip install "scikit-mil[ot]")')
    params = _set_params(args)
    _check_set_params(params, learners)
    with Progress(n_sets * _seeded_folds(args, learners), enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_kernels(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                                   n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds, params=params)
    if args.json:
        _print_reproduction(args, result, ", ".join(result.learners) + _params_note(params), {
            **_seed_json(result), "params": params,
            "published": {l: [None if p is None else list(p) for p in v] for l, v in result.published.items()}})
        return 0
    print("Bag-kernel SVMs and mi-SVM / MI-SVM" + _params_note(params)
          + ": mean bag-level accuracy % (AUC %) over the folds"
          + (f" (quick: {result.quick_note})" if result.quick else f" ({result.protocol})")
          + ", tuned by inner CV on the training bags; below each learner the published accuracies "
            "as quoted from the original papers and as re-implemented by Carbonneau et al. 2018 "
            "(10 x 10-fold CV)\n")
    print(_table(kernel_table(result), ["learner", *result.datasets]))
    _print_seed_note(result)
    total = sum(sum(v.values()) for v in result.seconds.values())
    print(f"\ntotal time: {total:.1f} s")
    return 0


def _cmd_reproduce_distances(args):
    from mil._progress import Progress
    from mil.reproduce import reproduce_distances

    if args.data == "milweb":
        return _reproduce_milweb(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    _check_jobs(args)
    scale = None if args.scale == "none" else args.scale
    curves = _want_curves(args)
    with Progress(n_sets * (10 + curves), enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_distances(datasets=datasets, quick=args.quick, scale=scale, alpha=args.alpha,
                                     curves=curves, progress=bar, n_jobs=args.jobs)
    _print_reproduction(args, result, f"Citation-KNN and Bag-KNN x five Hausdorff distances "
                                      f"(scale={args.scale}, alpha={args.alpha})")
    if not args.json:
        print(f"(wall time {result.total_seconds:.1f} s, distance matrices shared by the ten learners)")
    if result.curves or (args.plot_dir is None and args.alpha == "nca"):
        _write_plots(args, lambda: _curve_panels(result, "10-fold CV accuracy %"),
                     "integrated_references.png", "references / sigma")
    return 0


def _cmd_reproduce_embeddings(args):
    from mil.reproduce import EMBEDDING_LEARNERS, embeddings_table, reproduce_embeddings

    return _seeded_reproduction(
        args, EMBEDDING_LEARNERS, reproduce_embeddings, embeddings_table, "MILES and MInD",
        "tuned by CV inside each training fold (MILES 2 folds, MInD 5)",
        "published: Carbonneau, Cheplygina, Granger and Gagnon, Pattern Recognition 77 (2018), "
        "suppl. Table 4, accuracy of 10 x 10-fold CV with inner-CV tuning")


def _cmd_reproduce_encoders(args):
    from mil.reproduce import ENCODER_LEARNERS, encoders_table, reproduce_encoders

    return _seeded_reproduction(
        args, ENCODER_LEARNERS, reproduce_encoders, encoders_table, "Bag encoders",
        "encoder fitted and C tuned by a 5-fold CV inside each training fold",
        "published: Wei, Wu and Zhou, IEEE TNNLS 28(4) (2017), accuracy of 10 x 10-fold CV")


def _seeded_reproduction(args, known, run, table, title, tuning, published):
    """``mil reproduce embeddings`` / ``encoders``: the seeded CV table of `known` learners."""
    from mil._progress import Progress

    datasets, n_sets, learners = _reproduction_options(args, known)
    params = _set_params(args)
    _check_set_params(params, learners)
    title += _params_note(params)
    with Progress(n_sets * _seeded_folds(args, learners), enabled=False if args.quiet or args.json else None) as bar:
        result = run(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                     n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds, params=params)
    if args.json:
        print(json.dumps({
            "title": title, "quick": result.quick, "protocol": result.protocol, "params": params,
            "accuracy": {l: {d: [float(v) for v in result.accuracy[l][d]] for d in result.datasets}
                         for l in result.learners},
            **_seed_json(result),
            "seconds": {l: {d: float(result.seconds[l][d]) for d in result.datasets}
                        for l in result.learners},
        }, indent=2))
        return 0
    print(f"{title}: bag-level accuracy % (AUC %), mean over the folds, hyper-parameters {tuning}"
          + (f" (quick: {result.quick_note})" if result.quick else f" ({result.protocol})") + "\n")
    print(_table(table(result), ["learner", *result.datasets]))
    _print_seed_note(result)
    print("\n" + published)
    total = sum(sum(v.values()) for v in result.seconds.values())
    print(f"total time: {total:.1f} s")
    return 0


def _assumption_tasks():
    from mil._assumptions import TASKS

    return TASKS


def _cmd_reproduce_assumptions(args):
    from mil._assumptions import assumptions_table, reproduce_assumptions
    from mil._learners import LEARNERS, SEED_PARAMS, available_learners
    from mil._progress import Progress

    _check_jobs(args)
    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}")
    learners = tuple(args.learners or available_learners())
    bad = [name for name in learners if name not in LEARNERS]
    if bad:
        raise CLIError(f"unknown learner {bad[0]!r}; choose from {', '.join(LEARNERS)}")
    tasks = tuple(args.tasks or _assumption_tasks())
    seeds = 1 if args.quick else args.seeds
    runs = sum(seeds if name in SEED_PARAMS else 1 for name in learners)
    with Progress(len(tasks) * runs * (2 if args.quick else 10),
                  enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_assumptions(tasks=tasks, learners=learners, seeds=args.seeds, quick=args.quick,
                                       progress=bar, n_jobs=args.jobs)
    if args.json:
        def values(a):
            return [None if not np.isfinite(v) else float(v) for v in a]

        print(json.dumps({
            "protocol": result.protocol, "rules": result.rules, "seeds": result.seeds,
            "accuracy": {l: {t: values(a) for t, a in per.items()} for l, per in result.accuracy.items()},
            "auc": {l: {t: values(a) for t, a in per.items()} for l, per in result.auc.items()},
            "seed_accuracy": {l: {t: values(a) for t, a in per.items()} for l, per in result.seed_accuracy.items()},
            "seconds": result.seconds}, indent=2))
        return 0
    print(f"Multi-instance assumptions on digit bags: bag-level accuracy % (AUC %), {result.protocol}\n")
    print(_table(assumptions_table(result), ["learner", *result.tasks]))
    if result.seeds > 1 and result.seed_accuracy:
        print(f"\n* randomised learner: mean over seeds 0-{result.seeds - 1}, [lowest-highest seed accuracy]")
    print("\nrules:")
    for task in result.tasks:
        print(f"  {task}: {result.rules[task]}" + ("; the learners are given positive_class=0 (the bags "
                                                   "that hold the digit)" if task.endswith("pc=0") else ""))
    total = sum(sum(v.values()) for v in result.seconds.values())
    print(f"\ntotal time: {total:.1f} s")
    return 0


def _want_curves(args):
    """Compute the accuracy curves only for a plot that will be written (they cost time)."""
    return args.plot_dir is not None and not args.no_plots and args.alpha == "nca"


def _curve_panels(result, ylabel):
    """Plot panels: Citation-KNN (integrated) accuracy against references and against sigma."""
    out = []
    for key, xlabel in (("references", "references (citers = references + 2)"), ("sigma", "sigma")):
        series = {}
        for name, c in result.curves.items():
            x, y, fixed = c[key]
            other = "sigma" if key == "references" else "references"
            series[f"{name} ({other}={fixed})"] = (x, [100 * v for v in y])
        out.append({"title": f"Citation-KNN, integrated: accuracy against {key}",
                    "xlabel": xlabel, "ylabel": ylabel, "series": series, "logx": key == "sigma"})
    return {"panels": out}


def _reproduce_milweb(args):
    """``mil reproduce distances --data milweb``: the MILWEB table (one train/test split per user)."""
    from mil._progress import Progress
    from mil.reproduce import milweb_table, reproduce_milweb

    users = None
    if args.datasets:
        users = []
        for name in args.datasets:
            digits = name.lower().removeprefix("milweb").removeprefix("user")
            if not (digits.isdigit() and 1 <= int(digits) <= 9):
                raise CLIError(f"unknown MILWEB user {name!r}; give 1..9 (or user1..user9)")
            users.append(int(digits))
    if args.scale in ("standard", "minmax"):
        raise CLIError(f"--scale {args.scale} would make MILWEB's sparse bags dense; use none or maxabs")
    scale = None if args.scale == "none" else args.scale
    n_users = len(users or ((1,) if args.quick else range(9)))
    curves = _want_curves(args)
    with Progress(n_users * (10 + curves), enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_milweb(users=users, quick=args.quick, scale=scale, alpha=args.alpha,
                                  curves=curves, progress=bar, n_jobs=args.jobs)
    title = (f"MILWEB: Citation-KNN and Bag-KNN x five Hausdorff distances "
             f"(scale={args.scale}, alpha={args.alpha})")
    if args.json:
        print(json.dumps({
            "title": title, "quick": result.quick,
            "accuracy": {l: {d: float(result.accuracy[l][d][0]) for d in result.datasets}
                         for l in result.learners},
            "best_params": {l: {d: result.best_params[l][d][0] for d in result.datasets}
                            for l in result.learners},
            "seconds": {l: {d: float(result.seconds[l][d]) for d in result.datasets}
                        for l in result.learners},
        }, indent=2))
    else:
        print(f"{title}: accuracy % on the 38 test bags of each user, parameters chosen by 5-fold CV "
              "on the 75 training bags" + (f" (quick: {result.quick_note})" if result.quick else "") + "\n")
        print(_table(milweb_table(result), ["learner", *result.datasets, "mean"]))
        print(f"\n(wall time {result.total_seconds:.1f} s, distance matrices from the sparse path, "
              "shared by the ten learners)")
    if result.curves or (args.plot_dir is None and args.alpha == "nca"):
        _write_plots(args, lambda: _curve_panels(result, "test accuracy % (38 bags)"),
                     "milweb_integrated_references.png", "references / sigma")
    return 0


def _datasets_option(args):
    from mil.datasets import DATASETS

    if not args.datasets:
        return None
    bad = [d for d in args.datasets if d.lower() not in DATASETS]
    if bad:
        raise CLIError(f"unknown data set {bad[0]!r}; shipped: {', '.join(DATASETS)}")
    return tuple(d.lower() for d in args.datasets)


def _cmd_default(args):
    if not (args.json or args.csv):
        _cmd_info(args)
        print()
    return _cmd_evaluate(args)


def _evaluate_options(p):
    p.add_argument("--dataset", default="musk1",
                   help="shipped name (musk1, musk2, elephant, fox, tiger; milweb1..milweb9, the "
                        "nine MILWEB users with sparse bags and their 75/38 train/test split, "
                        "milweb alone is user 1) or a path to a Weka "
                        "multi-instance ARFF file (.arff) or a long CSV file, one row per instance "
                        "with a bag id column, a label column and numeric features (default: musk1)")
    p.add_argument("--model", nargs="+", metavar="NAME",
                   help="learner name(s) from the list below, or all (every available learner); "
                        "default: the quick default job, the learners marked * (an estimate of the "
                        "job's time is printed before it starts). A learner that cannot "
                        "take the data (NaN, more than two classes) is reported as skipped with the "
                        "reason and the others still run")
    p.add_argument("--folds", default=None, metavar="K|FILE",
                   help="number of CV folds (default: 10; on a shipped set 10 uses the published "
                        "folds; on MILWEB the default is its predefined 75/38 train/test split), or a folds file: one fold number per line, one line per bag in the "
                        "order the bags first appear in the data file, or lines 'bag id,fold' (an "
                        "optional header line 'bag,fold'; lines starting with # are ignored). Fold "
                        "numbers are any integers; fold k tests the bags numbered k")
    p.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="repetitions of the CV (default: 1); on a shipped set with 10 folds, up to 5 "
                        "use the published repetitions, more draw seeded random folds")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of random folds (repetition r uses seed + r) and of the randomised "
                        "learners (bootstrap samples, random rules, inner-CV splits), so that a run "
                        "can be repeated exactly (default: 0); the deterministic learners keep "
                        "their defaults")
    p.add_argument("--positive-class", metavar="LABEL",
                   help="the label of positive bags in two-class data; the multi-instance learners "
                        "treat a bag as positive when one of its instances is. Default: 1 or True for "
                        "0/1, -1/1 and False/True labels; an ARFF file's declared class order (the "
                        "second value, as in Weka, with a note); any other labels (words such as "
                        "active/inactive) need it, as in Python (positive_class=...)")
    table = p.add_argument_group("CSV files")
    table.add_argument("--bag-column", metavar="NAME", help="column of bag ids (default: bag)")
    table.add_argument("--label-column", metavar="NAME", help="column of bag labels (default: label)")
    table.add_argument("--delimiter", metavar="CHAR",
                       help="field separator: one character, or tab, comma, semicolon, space "
                            "(default: sniffed from the first lines among comma, semicolon, tab and "
                            "|; else comma, tab for .tsv and .tab files)")
    p.add_argument("--encoding", metavar="NAME",
                   help="text encoding of a CSV or ARFF file (default: utf-8; a byte-order mark is "
                        "skipped), e.g. latin-1 or cp1252")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes over the CV folds (default: 1; -1: one per core)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print results as JSON (one record per learner)")
    out.add_argument("--csv", action="store_true", help="print results as CSV (one row per learner)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (progress goes to stderr: a bar with the time left on a terminal, "
                        "a line every 10 s otherwise)")


def _version():
    from mil import __version__

    return __version__


_EPILOG = """examples:
  mil                                        configuration, then the default job on Musk1
  mil evaluate --dataset my_bags.csv         the default job (learners marked *) on a CSV
  mil evaluate --dataset my_bags.csv --model all --jobs 2     every learner
  mil evaluate --dataset fox --model c45-mi bag-knn --repeats 5 --json
  mil evaluate --dataset my_bags.arff        a Weka multi-instance ARFF file
  mil evaluate --dataset my_bags.csv --bag-column molecule --label-column activity \\
      --positive-class active --folds my_folds.csv
  mil evaluate --dataset milweb3 --model bag-knn citation-knn
  mil reproduce trees --quick --plot-dir plots

Learners that cannot take the data (NaN features, more than two classes,
sparse bags) are listed as skipped with the reason; the others run. Labels
other than 0/1, -1/1 and False/True need --positive-class (an ARFF file's
declared order makes the second class value positive). Exit status: 0 when at
least one learner ran, 2 for bad input or options (one line on stderr).
"""


def _learner_list():
    """The learners for --help: by cost class, one line each, the default job marked *."""
    from mil._costs import CLASS_REFERENCES, COST_CLASSES, FOLD_SECONDS, REFERENCES, cost_class
    from mil._learners import DEFAULT_JOB, LEARNERS

    (_, _, _, file_text, file_name), (_, _, _, _, musk_name) = [REFERENCES[r] for r in CLASS_REFERENCES]
    intro = (f"learners (--model NAME ...; * the default job), by the time of a 10-fold CV at their "
             f"defaults on a 2-core x86-64 (one process) on {file_text} and on {musk_name}: seconds "
             f"(under 10 s), under a minute, minutes (under 10 min) or long (more):")
    rank = {name: i for i, (_, name) in enumerate(COST_CLASSES)}
    groups = {}
    for name in sorted(LEARNERS, key=lambda n: FOLD_SECONDS.get(n, (float("inf"),))[0]):
        groups.setdefault(cost_class(name), []).append(name)
    lines = [textwrap.fill(intro, 88)]
    for on_file, on_musk in sorted(groups, key=lambda c: [rank.get(x, len(rank)) for x in c]):
        heading = (f"{on_file} on both" if on_file == on_musk
                   else f"{on_file} on {file_name}, {on_musk} on {musk_name}")
        lines.append(f"  {heading}:")
        for name in groups[on_file, on_musk]:
            mark = "*" if name in DEFAULT_JOB else ""
            lines.append(f"    {name + mark:<25}{LEARNERS[name][3]}")
    return "\n".join(lines) + "\n\n"


class _Parser(argparse.ArgumentParser):
    """Option errors as one line (with a pointer to --help), exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser():
    learners = _learner_list()
    parser = _Parser(
        prog="mil", description=textwrap.fill("Multi-instance learning: evaluate learners on bags of "
                                              "instances. With no command, show the configuration and "
                                              "run the default job (the learners marked * below) on the "
                                              "shipped Musk1.", 88),
        epilog=learners + _EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()} (scikit-mil)")
    _evaluate_options(parser)
    sub = parser.add_subparsers(dest="command")
    ev = sub.add_parser("evaluate", help="bag-level k-fold CV of learners on a data set",
                        description=textwrap.fill("Bag-level k-fold cross-validation: accuracy (mean ± "
                                                  "std over folds), AUC (two classes), fit and predict "
                                                  "time per learner. Without --model, the default job: "
                                                  "the learners marked * below.", 88),
                        epilog=learners + _EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _evaluate_options(ev)
    sub.add_parser("info", help="show the configuration (mil.show_config())",
                   description="Print versions and which implementation each kernel uses.")
    rep = sub.add_parser("reproduce", help="reproduce the papers' tables",
                         description="Reproduce the literature's tables on the five shipped data sets "
                                     "(10-fold CV on the published folds) and, for the distance "
                                     "learners, on MILWEB's nine users (--data milweb).")
    rep_sub = rep.add_subparsers(dest="target", required=True)
    for target, text in (("distances", "Citation-KNN and Bag-KNN with the five Hausdorff distances, "
                                       "inner 5-fold choice of references and sigma; plots of accuracy "
                                       "against references and sigma (integrated distance)"),
                         ("trees", "ID3-MI, C4.5-MI, GDBT-MI, RIPPER-MI, SimpleMI and MIWrapper with "
                                   "C4.5 inside, the MI random forest, bag-level randomized trees (BLRT) "
                                   "and two baselines (MIWrapper with gradient boosting, SimpleMI with a "
                                   "random forest); randomised learners over seeds; plot of GDBT-MI error "
                                   "against rounds on Musk1 and Musk2"),
                         ("kernels", "SVMs on bag kernels (NSK, miGraph, EMD) and mi-SVM / MI-SVM, "
                                     "5 published repetitions x 10 folds, tuned by inner CV, accuracy "
                                     "and AUC beside the published figures"),
                         ("embeddings", "MILES and MInD (bag embeddings) tuned by inner CV on the "
                                        "training bags, 5 published repetitions x 10 folds, accuracy "
                                        "and AUC beside the published figures"),
                         ("encoders", "miFV, miVLAD, the random-feature NSK and the sliced-Wasserstein SVM "
                                      "(bag encoders, linear in the instances) tuned by inner CV on the "
                                      "training bags, 5 published repetitions x 10 folds, accuracy and AUC "
                                      "beside the published figures")):
        r = rep_sub.add_parser(target, help=text, description=text)
        r.add_argument("--quick", action="store_true", help="a reduced run in seconds (smoke test)")
        r.add_argument("--datasets", nargs="+", metavar="NAME", help="subset of the shipped data sets")
        r.add_argument("--plot-dir", metavar="DIR",
                       help="write the PNG plots into DIR (created if needed); without it no plot "
                            "is written")
        r.add_argument("--no-plots", action="store_true",
                       help="tables only, even with --plot-dir (the default without --plot-dir)")
        r.add_argument("--json", action="store_true", help="print results as JSON")
        r.add_argument("--quiet", action="store_true",
                       help="no progress (on stderr: a bar with the time left on a terminal, a line "
                            "every 10 s otherwise)")
        r.add_argument("--jobs", type=int, default=None, metavar="N",
                       help="workers over the CV folds (default: 1; -1: one per core)")
        if target == "trees":
            r.add_argument("--repeats", type=int, default=1, choices=range(1, 6), metavar="R",
                           help="published 10-fold repetitions to run, 1-5 (default: 1, repetition 0)")
            r.add_argument("--seeds", type=int, default=3, metavar="S",
                           help="run each randomised learner (GDBT-MI in both kinds, RIPPER-MI, the MI forest, BLRT, "
                                "SimpleMI with a random forest) with the seeds 0..S-1 and report the mean "
                                "over seeds and its range (default: 3)")
            r.add_argument("--learners", nargs="+", metavar="NAME",
                           help="subset of the learners (default: all eleven: id3-mi, c45-mi, gdbt-mi, "
                                "gdbt-bag-ratio, ripper-mi, simplemi-tree, miwrapper-tree, mi-forest, blrt, miwrapper-hgb, "
                                "simplemi-rf), e.g. to re-run the ones whose defaults changed")
        if target in ("kernels", "embeddings", "encoders"):
            r.add_argument("--seeds", type=int, default=3, metavar="S",
                           help="run each learner (all are randomised: inner-CV folds, k-means, "
                                "prototypes) with the seeds 0..S-1 and report the mean over seeds and "
                                "its range (default: 3)")
            r.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="set_params",
                           help="give every learner run this parameter over its registry default "
                                "(repeatable; the value is read as a Python literal, else a string), "
                                "e.g. --set n_concepts=1000")
        if target == "kernels":
            r.add_argument("--repeats", type=int, default=5, choices=range(1, 6), metavar="R",
                           help="published 10-fold repetitions to run, 1-5 (default: 5)")
            r.add_argument("--learners", nargs="+", metavar="NAME",
                           help="subset of the learners (default: nsk-svm, migraph-svm, emd-svm, mi-svm, "
                                "MI-svm)")
        if target == "embeddings":
            r.add_argument("--repeats", type=int, default=5, choices=range(1, 6), metavar="R",
                           help="published 10-fold repetitions to run, 1-5 (default: 5)")
            r.add_argument("--learners", nargs="+", metavar="NAME",
                           help="subset of the learners (default: miles mind)")
        if target == "encoders":
            r.add_argument("--repeats", type=int, default=5, choices=range(1, 6), metavar="R",
                           help="published 10-fold repetitions to run, 1-5 (default: 5)")
            r.add_argument("--learners", nargs="+", metavar="NAME",
                           help="subset of the learners (default: mi-fv mi-vlad nystroem-nsk rff-nsk swe-svm)")
        if target == "distances":
            r.add_argument("--data", choices=["classic", "milweb"], default="classic",
                           help="classic: the five shipped sets, 10-fold CV (default); milweb: the nine "
                                "MILWEB users, predefined 75/38 train/test split (--datasets then "
                                "takes user numbers 1..9)")
            r.add_argument("--scale", choices=["none", "standard", "minmax", "maxabs"], default="none",
                           help="feature scaling (default: none, the paper's protocol; MILWEB: none "
                                "or maxabs)")
            r.add_argument("--alpha", choices=["nca", "cv"], default="nca",
                           help="integrated distance: alpha by NCA (paper) or by the inner CV")
    text = ("every registered learner on bags of scikit-learn's 8x8 digits labelled by four multi-instance "
            "assumptions (make_digit_bags: presence of a digit, several digits together, a digit's absence, "
            "at least two of a digit), and absence again with positive_class=0; 10-fold CV, accuracy and "
            "AUC, randomised learners over seeds")
    r = rep_sub.add_parser("assumptions", help=text, description=text)
    r.add_argument("--quick", action="store_true", help="a reduced run in seconds (smoke test)")
    r.add_argument("--learners", nargs="+", metavar="NAME",
                   help="subset of the learners (default: every available learner)")
    r.add_argument("--tasks", nargs="+", metavar="TASK", choices=list(_assumption_tasks()),
                   help=f"subset of the columns: {', '.join(_assumption_tasks())} (default: all)")
    r.add_argument("--seeds", type=int, default=3, metavar="S",
                   help="run each randomised learner with the seeds 0..S-1 (default: 3)")
    r.add_argument("--json", action="store_true", help="print results as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress")
    r.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="workers over the CV folds (default: 1; -1: one per core)")
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {None: _cmd_default, "evaluate": _cmd_evaluate, "info": _cmd_info,
                "reproduce": lambda a: {"trees": _cmd_reproduce_trees,
                                        "distances": _cmd_reproduce_distances,
                                        "kernels": _cmd_reproduce_kernels,
                                        "embeddings": _cmd_reproduce_embeddings,
                                        "encoders": _cmd_reproduce_encoders,
                                        "assumptions": _cmd_reproduce_assumptions}[a.target](a)}
    try:
        return handlers[args.command](args)
    except CLIError as exc:
        print(f"mil: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mil: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which closed early
        sys.stderr.close()
        return 0
