"""Bags of handwritten digits labelled by a multi-instance assumption (scikit-learn's 8x8 digits)."""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state

from mil.bags import Bags

__all__ = ["ASSUMPTIONS", "make_digit_bags"]

#: assumption -> (default target digits, rule in words); ``{t}`` is the targets, ``{k}`` the threshold.
ASSUMPTIONS = {
    "presence": ((3,), "a bag is positive when it holds at least one {t} (the standard assumption: one "
                       "witness makes a bag positive)"),
    "several": ((3, 8), "a bag is positive when it holds each of {t} (several concepts together); a "
                        "negative bag may hold some of them, never all"),
    "absence": ((3,), "a bag is positive when it holds no {t} (a concept's absence: the concept's "
                      "instances make a bag negative)"),
    "count": ((3,), "a bag is positive when it holds at least {k} instances of {t} (a count of "
                    "witnesses reaching a threshold); a negative bag holds 0 to {k_1}"),
}


def _targets_text(targets, joiner):
    names = [str(t) for t in targets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {joiner} " + names[-1]


def rule_text(assumption, targets, threshold):
    """The labelling rule of `assumption` in words, for these targets and threshold."""
    joiner = "and" if assumption == "several" else "or"
    return ASSUMPTIONS[assumption][1].format(t=_targets_text(targets, joiner), k=threshold, k_1=threshold - 1)


class _Pools:
    """Images of each digit drawn in shuffled cycles: none repeats before its digit's others are used."""

    def __init__(self, labels, rng):
        self.rng = rng
        self.index = {d: np.flatnonzero(labels == d) for d in range(10)}
        self.queue = {d: [] for d in range(10)}

    def draw(self, digit):
        if not self.queue[digit]:
            self.queue[digit] = list(self.rng.permutation(self.index[digit]))
        return self.queue[digit].pop()


def _target_counts(assumption, label, targets, threshold, size, rng):
    """How many instances of each target digit a bag of `size` with `label` holds."""
    counts = np.zeros(len(targets), dtype=int)
    if assumption in ("presence", "absence"):
        witness = label == (assumption == "presence")
        if witness:  # one or two instances of the targets
            for _ in range(int(rng.randint(1, min(2, size) + 1))):
                counts[rng.randint(len(targets))] += 1
    elif assumption == "several":
        if label:
            present = np.ones(len(targets), dtype=bool)
        else:  # a proper subset of the targets, each one equally likely
            while True:
                present = rng.random_sample(len(targets)) < 0.5
                if not present.all():
                    break
        counts[present] = 1
        extra = int(rng.randint(0, 2))  # sometimes a second instance of one present target
        if extra and present.any() and counts.sum() < size:
            counts[rng.choice(np.flatnonzero(present))] += 1
    else:  # count
        n = int(rng.randint(threshold, threshold + 2)) if label else int(rng.randint(0, threshold))
        for _ in range(n):
            counts[rng.randint(len(targets))] += 1
    return counts


def make_digit_bags(assumption="presence", *, n_bags=200, bag_size=(3, 7), targets=None, threshold=2,
                    random_state=None):
    """Bags of 8x8 handwritten digits labelled by a multi-instance assumption.

    A small public benchmark of the assumptions after Grahn (2021): each
    instance is one of the 1,797 images of scikit-learn's digits
    (:func:`sklearn.datasets.load_digits`; its 64 pixels, 0 to 16, are the
    features), each bag holds `bag_size` of them, and the bag's label follows
    one rule on the digits it holds:

    ``"presence"``
        positive when it holds at least one target digit (the standard
        multi-instance assumption; default target 3);
    ``"several"``
        positive when it holds each of the target digits (several concepts
        together; default 3 and 8); a negative bag holds a proper subset of
        them (none, only 3 or only 8, each as likely);
    ``"absence"``
        positive when it holds none of the target digits (default 3): the
        concept's instances make a bag negative, the reverse of the standard
        assumption;
    ``"count"``
        positive when it holds at least `threshold` instances of the target
        digits (default 3, threshold 2); a negative bag holds 0 to
        ``threshold - 1`` of them, each number as likely.

    Half the bags are positive (the larger half for an odd `n_bags`). A bag
    is built from its label: the target instances the rule asks for (one or
    two witnesses for presence and for the negative bags of absence;
    ``threshold`` or ``threshold + 1`` for a positive count), the rest drawn
    from the other digits, in a shuffled order. The labels follow the rule
    exactly (``instance_digits`` lets you check them). Each digit's images
    are drawn in shuffled cycles, so that an image is used again only after
    every image of its digit has been used (200 bags of 3 to 7 digits use
    about 1,000 of the 1,797 images).

    Parameters
    ----------
    assumption : {"presence", "several", "absence", "count"}, default="presence"
    n_bags : int, default=200
    bag_size : int or (int, int), default=(3, 7)
        Instances per bag: a fixed number, or the range (inclusive) of a
        uniform draw. At least the number of target instances a rule needs
        (two for ``"several"``, ``threshold + 1`` for ``"count"``).
    targets : sequence of int, default=None
        The target digits (0-9); None: the assumption's default above.
    threshold : int, default=2
        The count rule's threshold (``"count"`` only).
    random_state : int, RandomState instance or None, default=None
        Seeds the labels, the bag sizes and the images drawn.

    Returns
    -------
    data : Bunch
        ``data`` (list of float64 arrays of shape (size, 64), one per bag),
        ``target`` (int, 1 = positive), ``bags`` (the same as a
        :class:`~mil.Bags`), ``instance_digits`` (list of int arrays: the
        digit of each instance), ``instance_images`` (list of int arrays:
        the index of each instance in ``load_digits()``), ``feature_names``
        (``pixel_r_c``), ``assumption``, ``targets``, ``threshold``, ``rule``
        (the rule in words) and ``DESCR``.

    References
    ----------
    D. Grahn, "mil-benchmarks: Standardized evaluation of deep
    multiple-instance learning techniques", arXiv:2105.01443, 2021.

    N. Weidmann, E. Frank and B. Pfahringer, "A two-level learning method
    for generalized multi-instance problems", ECML 2003.

    Examples
    --------
    >>> from mil.datasets import make_digit_bags
    >>> d = make_digit_bags("several", n_bags=20, random_state=0)
    >>> len(d.data), d.data[0].shape[1], int(d.target.sum())
    (20, 64, 10)
    >>> d.rule
    'a bag is positive when it holds each of 3 and 8 (several concepts together); a negative bag may hold some of them, never all'
    >>> all(set(d.instance_digits[i]) >= {3, 8} for i in range(20) if d.target[i] == 1)
    True
    """
    from sklearn.datasets import load_digits

    if assumption not in ASSUMPTIONS:
        raise ValueError(f"assumption must be one of {', '.join(map(repr, ASSUMPTIONS))}; got {assumption!r}")
    if isinstance(n_bags, bool) or not isinstance(n_bags, numbers.Integral) or n_bags < 2:
        raise ValueError(f"n_bags must be an integer >= 2; got {n_bags!r}")
    targets = tuple(int(t) for t in (ASSUMPTIONS[assumption][0] if targets is None else targets))
    if not targets or len(set(targets)) != len(targets) or not all(0 <= t <= 9 for t in targets):
        raise ValueError(f"targets must be distinct digits 0-9; got {targets!r}")
    if len(targets) == 10 and assumption != "count":
        raise ValueError("targets must leave at least one digit out (the other instances)")
    if assumption == "count" and (isinstance(threshold, bool) or not isinstance(threshold, numbers.Integral)
                                  or threshold < 1):
        raise ValueError(f"threshold must be an integer >= 1; got {threshold!r}")
    low, high = (bag_size, bag_size) if isinstance(bag_size, numbers.Integral) else tuple(bag_size)
    need = {"several": len(targets), "count": threshold + 1}.get(assumption, 1)
    if not (isinstance(low, numbers.Integral) and isinstance(high, numbers.Integral)) or low > high or low < need:
        raise ValueError(f"bag_size must be an integer or a (low, high) range with low >= {need} for "
                         f"{assumption!r}; got {bag_size!r}")
    rng = check_random_state(random_state)
    digits = load_digits()
    images, labels = digits.data, digits.target
    pools = _Pools(labels, rng)
    others = [d for d in range(10) if d not in targets]
    y = rng.permutation(np.arange(n_bags) < (n_bags + 1) // 2).astype(np.int64)
    picked, picked_digits = [], []
    for label in y:
        size = int(rng.randint(low, high + 1))
        counts = _target_counts(assumption, label, targets, threshold, size, rng)
        bag_digits = [t for t, n in zip(targets, counts) for _ in range(n)]
        bag_digits += [others[i] for i in rng.randint(len(others), size=size - len(bag_digits))]
        bag_digits = np.array(bag_digits, dtype=np.int64)[rng.permutation(size)]
        picked.append(np.array([pools.draw(d) for d in bag_digits], dtype=np.int64))
        picked_digits.append(bag_digits)
    data = [images[idx].astype(np.float64) for idx in picked]
    names = [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]
    rule = rule_text(assumption, targets, threshold)
    n_inst = sum(len(b) for b in data)
    descr = (f"Digit bags, {assumption} assumption\n\n{n_bags} bags ({int(y.sum())} positive) of "
             f"{low}-{high} images of scikit-learn's 8x8 digits ({n_inst} instances, 64 pixel features "
             f"0-16). Rule: {rule}.\n")
    return Bunch(data=data, target=y, bags=Bags.from_list(data).with_feature_names(names),
                 instance_digits=picked_digits, instance_images=picked, feature_names=names,
                 assumption=assumption, targets=targets, threshold=threshold, rule=rule, DESCR=descr)
