"""Figures quoted in the README and the guides agree with the README's results table.

The README's table (five-set means over the published folds, the results pages' rows) is the
reference; the choosing guide, the command-line guide's default job and the ensembles page
quote it.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
pytestmark = pytest.mark.skipif(not (ROOT / "docs").is_dir() or not README.exists(),
                                reason="the docs are not beside the tests (installed package)")

#: Registry name -> the README row's label.
ROWS = {"recommended": "soft vote of MInD, EMD SVM, BLRT *", "mind": "MInD *", "miles": "MILES *",
        "emd-svm": "EMD kernel SVM *", "nsk-svm": "NSK SVM *", "mi-svm-bag": "MI-SVM *", "mi-svm": "mi-SVM *",
        "blrt": "BLRT *", "gdbt-bag-ratio": "GDBT-MI, bag-ratio trees *", "swe-svm": "sliced-Wasserstein SVM *",
        "nystroem-nsk": "NSK by Nystroem kernel means *", "mi-fv": "miFV *", "mi-vlad": "miVLAD *",
        "ripper-mi": "RIPPER-MI *", "miwrapper-hgb": "MIWrapper + HistGradientBoosting"}
ENCODERS = ("swe-svm", "nystroem-nsk", "mi-fv", "mi-vlad")


def _readme_rows():
    """README row label -> (five-set mean accuracy, mean AUC over the five sets or None)."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and re.fullmatch(r"\d+\.\d", cells[6]):
            aucs = re.findall(r"\d+\.\d", cells[7])
            rows[cells[0]] = (float(cells[6]), sum(map(float, aucs)) / 5 if len(aucs) == 5 else None)
    return rows


def _close(quoted, value):
    # The quote is rounded to 0.1 (0.05 either way), and a mean recomputed from the README's
    # rounded cells can be 0.05 off the mean of the unrounded ones.
    return abs(float(quoted) - value) <= 0.101


def test_the_readme_table_has_every_quoted_row():
    assert set(ROWS.values()) <= set(_readme_rows())


def test_choosing_guide_quotes_the_readme():
    rows = _readme_rows()
    text = (ROOT / "docs/user_guide/choosing.rst").read_text(encoding="utf-8")
    checked = 0
    for name, label in ROWS.items():
        m = re.search(rf"\(``{re.escape(name)}``[^)]*\)[^,]*\*?\", (\d+\.\d) \((\d+\.\d)\)", text)
        if m is None:
            continue
        mean, auc = rows[label]
        assert _close(m.group(1), mean), (name, m.group(1), mean)
        assert auc is None or _close(m.group(2), auc), (name, m.group(2), auc)
        checked += 1
    assert checked >= 10


def test_cli_guide_default_job_table_quotes_the_readme():
    from mil._learners import DEFAULT_JOB

    rows = _readme_rows()
    text = (ROOT / "docs/user_guide/cli.rst").read_text(encoding="utf-8")
    for name in DEFAULT_JOB:
        m = re.search(rf"^{re.escape(name)}\s+(\d+\.\d) / (\d+\.\d)", text, flags=re.M)
        assert m is not None, name
        mean, auc = rows[ROWS[name]]
        assert _close(m.group(1), mean) and _close(m.group(2), auc), (name, m.groups(), mean, auc)


def test_ensembles_page_quotes_the_single_learners():
    rows = _readme_rows()
    text = " ".join((ROOT / "docs/results/ensembles.rst").read_text(encoding="utf-8").split())
    best_encoder = max(rows[ROWS[n]][0] for n in ENCODERS)
    m = re.search(r"the bag encoders at most (\d+\.\d)", text)
    assert m is not None and _close(m.group(1), best_encoder)
    for label, quoted in (("MInD *", r"MInD's (\d+\.\d)"), ("MILES *", r"MILES (\d+\.\d)"),
                          ("NSK SVM *", r"the NSK SVM (\d+\.\d)"),
                          ("MIWrapper + HistGradientBoosting", r"MIWrapper \+ HistGradientBoosting (\d+\.\d)"),
                          ("soft vote of MInD, EMD SVM, BLRT *", r"The vote's five-set mean, (\d+\.\d)")):
        m = re.search(quoted, text)
        assert m is not None and _close(m.group(1), rows[label][0]), label
