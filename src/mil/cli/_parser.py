"""The argument parser of ``mil``: options, subcommands, and the learner list of ``--help``."""

import argparse
import textwrap

from mil import __version__
from mil._assumptions import TASKS
from mil._costs import CLASS_REFERENCES, COST_CLASSES, FOLD_SECONDS, REFERENCES, cost_class
from mil._learners import DEFAULT_JOB, DEFAULT_REGRESSION_JOB, LEARNERS

__all__ = ["build_parser"]


def _evaluate_options(p):
    """The options of ``mil`` and ``mil evaluate``."""
    p.add_argument("--dataset", default="musk1",
                   help="shipped name (musk1, musk2, elephant, fox, tiger; milweb1..milweb9, the "
                        "nine MILWEB users with sparse bags and their 75/38 train/test split, "
                        "milweb alone is user 1) or a path to a Weka "
                        "multi-instance ARFF file (.arff), a long CSV or Parquet file (one row per instance "
                        "with a bag id column, a label column and numeric features) or a folder of per-bag "
                        ".npy, .npz, .h5 (a 'features' dataset, as CLAM writes) or .parquet files, the bag "
                        "id each file's name, with a labels.csv (or --labels) (default: musk1)")
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
    p.add_argument("--task", choices=["auto", "classification", "regression"], default="auto",
                   help="classes or real values (default: auto: labels that are real numbers with a "
                        "fractional part are a regression, scored by RMSE, MAE and R^2 over shuffled "
                        "k-fold CV; integers with many distinct values ask for --task)")
    p.add_argument("--positive-class", metavar="LABEL",
                   help="the label of positive bags in two-class data; the multi-instance learners "
                        "treat a bag as positive when one of its instances is. Default: 1 or True for "
                        "0/1, -1/1 and False/True labels; an ARFF file's declared class order (the "
                        "second value, as in Weka, with a note); any other labels (words such as "
                        "active/inactive) need it, as in Python (positive_class=...)")
    p.add_argument("--labels", metavar="FILE",
                   help="with --dataset FOLDER (one .npy, .npz, .h5 or .parquet file per bag, the bag id "
                        "its file name): the CSV table of bag ids and labels (default: the folder's "
                        "labels.csv)")
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
    (_, _, _, file_text, file_name), (_, _, _, _, musk_name) = [REFERENCES[r] for r in CLASS_REFERENCES]
    intro = (f"learners (--model NAME ...; * the default job), by the time of a 10-fold CV at their "
             f"defaults on a 2-core x86-64 (one process) on {file_text} and on {musk_name}: seconds "
             f"(under 10 s), under a minute, minutes (under 10 min) or long (more):")
    rank = {name: i for i, (_, name) in enumerate(COST_CLASSES)}
    groups = {}
    classifiers = [name for name, row in LEARNERS.items() if row.task == "classification"]
    for name in sorted(classifiers, key=lambda n: FOLD_SECONDS.get(n, (float("inf"),))[0]):
        groups.setdefault(cost_class(name), []).append(name)
    lines = [textwrap.fill(intro, 88)]
    for on_file, on_musk in sorted(groups, key=lambda c: [rank.get(x, len(rank)) for x in c]):
        heading = (f"{on_file} on both" if on_file == on_musk
                   else f"{on_file} on {file_name}, {on_musk} on {musk_name}")
        lines.append(f"  {heading}:")
        for name in groups[on_file, on_musk]:
            mark = "*" if name in DEFAULT_JOB else ""
            lines.append(f"    {name + mark:<25}{LEARNERS[name].description}")
    regressors = [name for name, row in LEARNERS.items() if row.task == "regression"]
    if regressors:
        lines.append("  regressors, for real-valued labels (* the default job on them):")
        for name in regressors:
            mark = "*" if name in DEFAULT_REGRESSION_JOB else ""
            lines.append(f"    {name + mark:<25}{LEARNERS[name].description}")
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
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} (scikit-mil)")
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
                                "mi-svm-bag)")
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
    text = ("multi-instance regression on generated bags beside the published rows: law (Law et al. 2018's "
            "chi-square bags, test MSE), primary (Chauhan et al. 2024's primary-instance bags, instance MSE "
            "and attribution), entropy (rotated Gaussians, R^2); seeds 0..S-1")
    r = rep_sub.add_parser("regression", help=text, description=text)
    r.add_argument("table", choices=["law", "primary", "entropy"])
    r.add_argument("--quick", action="store_true", help="reduced data in seconds (a smoke run, not the benchmark)")
    r.add_argument("--seeds", type=int, default=3, metavar="S", help="seeds 0..S-1 (default: 3)")
    r.add_argument("--learners", nargs="+", metavar="NAME", help="a subset of the table's rows")
    r.add_argument("--json", action="store_true", help="print the rows as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress")
    text = ("every registered learner on bags of scikit-learn's 8x8 digits labelled by four multi-instance "
            "assumptions (make_digit_bags: presence of a digit, several digits together, a digit's absence, "
            "at least two of a digit), and absence again with positive_class=0; 10-fold CV, accuracy and "
            "AUC, randomised learners over seeds")
    r = rep_sub.add_parser("assumptions", help=text, description=text)
    r.add_argument("--quick", action="store_true", help="a reduced run in seconds (smoke test)")
    r.add_argument("--learners", nargs="+", metavar="NAME",
                   help="subset of the learners (default: every available learner)")
    r.add_argument("--tasks", nargs="+", metavar="TASK", choices=list(TASKS),
                   help=f"subset of the columns: {', '.join(TASKS)} (default: all)")
    r.add_argument("--seeds", type=int, default=3, metavar="S",
                   help="run each randomised learner with the seeds 0..S-1 (default: 3)")
    r.add_argument("--json", action="store_true", help="print results as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress")
    r.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="workers over the CV folds (default: 1; -1: one per core)")
    return parser
