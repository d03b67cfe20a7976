"""Description length of a rule set, Cohen's (1995) encoding as in RIPPER/JRip.

The description length (DL) of a rule set is the bits needed to send the
theory (the rules) plus the bits needed to send its exceptions (the training
bags it misclassifies). RIPPER stops adding rules when the DL exceeds the
smallest DL seen so far by more than 64 bits, and deletes rules whose removal
does not increase the DL.

Theory: a rule with k conditions, chosen among ``n_conditions`` possible
ones (two operators times the distinct values of each feature), costs
``0.5 * (log2 k + 2 log2 log2 k + subset_dl(n_conditions, k, k / n_conditions))``
bits; 0.5 is the redundancy factor that accounts for conditions being
sendable in any order and for redundant ones.

Exceptions: ``data_dl`` encodes which covered bags are false positives and
which uncovered bags are false negatives (Quinlan 1995; Cohen 1995), with the
expected share of false positives among the errors ``exp_fp_over_err`` (the
positive-bag rate of the training data, as JRip uses).
"""

import math

__all__ = ["subset_dl", "theory_dl", "data_dl", "ruleset_dl", "REDUNDANCY", "MAX_DL_SURPLUS"]

#: Cohen's redundancy factor applied to the theory bits.
REDUNDANCY = 0.5
#: RIPPER stops when the DL exceeds the smallest DL so far by more than this (bits).
MAX_DL_SURPLUS = 64.0
# Keeps log2 finite when a probability estimate hits 0 or 1 with a nonzero count.
_EPS = 1e-12


def subset_dl(t, k, p):
    """Bits to identify a subset of k elements among t, each in it with probability p.

    ``-k log2(p) - (t - k) log2(1 - p)``; a term with a zero count is 0.

    Examples
    --------
    >>> subset_dl(4, 1, 0.5)
    4.0
    """
    bits = 0.0
    if k > 0:
        bits -= k * math.log2(max(p, _EPS))
    if t - k > 0:
        bits -= (t - k) * math.log2(max(1.0 - p, _EPS))
    return bits


def theory_dl(k, n_conditions):
    """Bits of one rule with k conditions out of ``n_conditions`` possible ones (x 0.5).

    Examples
    --------
    >>> round(theory_dl(1, 4), 6)   # 0.5 * subset_dl(4, 1, 1/4)
    1.622556
    """
    if k == 0:
        return 0.0
    bits = math.log2(k)
    if k > 1:
        bits += 2.0 * math.log2(bits)  # log* approximation of the length code
    bits += subset_dl(n_conditions, k, k / n_conditions)
    return REDUNDANCY * bits


def data_dl(exp_fp_over_err, cover, uncover, fp, fn):
    """Bits of the exceptions: false positives among covered bags, false negatives among the rest.

    Parameters
    ----------
    exp_fp_over_err : float
        Expected fraction of the errors that are false positives.
    cover, uncover : int
        Bags covered / not covered by the rule set.
    fp, fn : int
        Negative bags covered, positive bags not covered.
    """
    bits = math.log2(cover + uncover + 1.0)
    if cover > uncover:
        expected = exp_fp_over_err * (fp + fn)
        bits += subset_dl(cover, fp, expected / cover)
        bits += subset_dl(uncover, fn, fn / uncover) if uncover > 0 else 0.0
    else:
        expected = (1.0 - exp_fp_over_err) * (fp + fn)
        bits += subset_dl(cover, fp, fp / cover) if cover > 0 else 0.0
        bits += subset_dl(uncover, fn, expected / uncover)
    return bits


def ruleset_dl(rule_lengths, n_conditions, exp_fp_over_err, cover, uncover, fp, fn):
    """Total DL of a rule set: theory bits of every rule plus the exception bits.

    Examples
    --------
    >>> dl = ruleset_dl([1], 4, 0.5, cover=3, uncover=5, fp=1, fn=1)
    >>> round(dl, 3)
    11.157
    """
    theory = sum(theory_dl(k, n_conditions) for k in rule_lengths)
    return theory + data_dl(exp_fp_over_err, cover, uncover, fp, fn)
