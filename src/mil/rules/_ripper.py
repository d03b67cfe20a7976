"""RIPPER-MI: RIPPER rule induction with bag-level coverage.

RIPPER (Cohen 1995, "Fast Effective Rule Induction") learns a set of rules
for the positive class:

1. Building (IREP*): split the bags not yet covered into a growing and a
   pruning set (stratified, 2/3 - 1/3). Grow a rule by adding the condition
   of highest FOIL gain until it covers no negative growing bag; prune it by
   deleting the final sequence of conditions that maximises
   ``(p - n) / (p + n)`` on the pruning bags. Accept it, remove the bags it
   covers, repeat. Stop when no positive bag is left, when the rule's error
   on the pruning bags exceeds 50 %, or when the rule set's description
   length (DL) exceeds the smallest seen by more than 64 bits. Then delete
   the rules whose removal does not increase the DL.
2. Optimisation (k rounds): for each rule, grow a replacement (from scratch)
   and a revision (from the rule) on the bags no other rule covers, prune
   both to minimise the whole rule set's error on the pruning bags, and keep
   whichever of original, replacement and revision gives the smallest DL.
   Then cover the positives left with new rules (step 1) and delete the
   rules that increase the DL.

Multi-instance learning (Chevaleyre & Zucker 2001): a rule covers a bag iff
it covers one of its instances, and every count is a count of bags. The
condition search runs in the ``_rule_split`` kernel.
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from mil._core import kernel
from mil.base import BaseBagClassifier
from mil.rules._mdl import MAX_DL_SURPLUS, ruleset_dl
from mil.rules._rule import Rule, format_rules, pack_rules
from mil.utils._threads import RowThreads

__all__ = ["RipperMIClassifier"]


class RipperMIClassifier(BaseBagClassifier):
    """RIPPER rule learner for multi-instance data (RIPPER-MI).

    Learns an unordered set of rules ``IF x_f <= t AND ... THEN positive``;
    a bag is predicted positive iff some rule covers one of its instances.
    With one instance per bag it is plain RIPPER (Cohen 1995).

    Parameters
    ----------
    k : int, default=2
        Number of optimisation rounds (0 gives IREP* with the MDL stop).
    prune_ratio : float, default=1/3
        Fraction of the bags (per class) held out to prune each rule.
    min_bags : int, default=2
        Minimum number of positive growing bags a rule must cover; a
        condition that would leave fewer is not considered.
    beam_width : int, default=1
        Width of the beam search used to grow rules (1 = greedy, as RIPPER).
        With a wider beam the rules of a step are ranked by their summed
        FOIL gain.
    use_lrs : bool, default=False
        Pre-pruning with CN2's likelihood-ratio statistic: a condition is
        only added when the grown rule's bag class distribution differs
        significantly from that of the growing set.
    lrs_threshold : float, default=3.84
        Threshold on the likelihood-ratio statistic (chi-square with one
        degree of freedom; 3.84 is the 95 % level).
    positive_class : label, default=None
        The class the rules describe (``classes_[1]`` when None).
    random_state : int, RandomState instance or None, default=None
        Seeds the grow/prune splits.
    n_jobs : int or None, default=None
        Threads sharing out the features of the condition search (the
        compiled kernel runs without the GIL); None is 1, -1 one per core.
        The rules do not depend on it.

    Attributes
    ----------
    rules_ : list of Rule
        The learned rules; ``rule.conditions`` are ``(feature, op, threshold)``
        named tuples (op 0: ``<=``, op 1: ``>=``) and ``rule.p`` / ``rule.n``
        the positive / negative training bags the rule covers.
    default_rule_ : tuple of int
        ``(p, n)``: positive and negative training bags no rule covers.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from mil.rules import RipperMIClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.uniform(0, 1, size=(3, 2)) for _ in range(40)]
    >>> y = np.arange(40) % 2
    >>> for bag, label in zip(X, y):
    ...     if label:
    ...         bag[0] = [2.0, 2.0]       # positive bags hold one instance near (2, 2)
    >>> clf = RipperMIClassifier(random_state=0).fit(X, y)
    >>> print(clf.export_text())
    IF f0 >= 1.49097 THEN positive  [20+, 0-]
    ELSE negative  [0+, 20-]
    >>> clf.score(X, y)
    1.0
    """

    _parameter_constraints = {
        "k": [Interval(Integral, 0, None, closed="left")],
        "prune_ratio": [Interval(Real, 0, 1, closed="neither")],
        "min_bags": [Interval(Integral, 1, None, closed="left")],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
        "use_lrs": ["boolean"],
        "lrs_threshold": [Interval(Real, 0, None, closed="left")],
        "positive_class": "no_validation",
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, k=2, prune_ratio=1 / 3, min_bags=2, beam_width=1, use_lrs=False,
                 lrs_threshold=3.84, positive_class=None, random_state=None, n_jobs=None):
        self.k = k
        self.prune_ratio = prune_ratio
        self.min_bags = min_bags
        self.beam_width = beam_width
        self.use_lrs = use_lrs
        self.lrs_threshold = lrs_threshold
        self.positive_class = positive_class
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y):
        """Learn the rule set.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
        y : array-like of shape (n_bags,)
            Two classes.

        Returns
        -------
        self
        """
        bags, y_enc = self._validate_fit(X, y)
        with RowThreads(self.n_jobs, bags.n_features) as threads:
            learner = _Ripper(self, bags, y_enc == 1, check_random_state(self.random_state), threads)
            conds = learner.run()
        cov = learner.coverages(conds)
        pos = learner.pos
        self.rules_ = [Rule(c, p=int((cv & pos).sum()), n=int((cv & ~pos).sum()))
                       for c, cv in zip(conds, cov)]
        any_cov = cov.any(axis=0) if len(conds) else np.zeros(bags.n_bags, dtype=bool)
        self.default_rule_ = (int((~any_cov & pos).sum()), int((~any_cov & ~pos).sum()))
        return self

    # -- prediction -------------------------------------------------------------
    def _rule_coverage(self, X):
        bags = self._validate_predict(X)
        rule_ptr, features, ops, thresholds = pack_rules([r.conditions for r in self.rules_])
        cov = kernel("_rule_split").ruleset_coverage(
            bags.instances, bags.offsets, rule_ptr, features, ops, thresholds)
        return cov.astype(bool)

    def _positive_scores(self, cov):
        """Laplace precision of the covering rules (mean), default-rule rate otherwise."""
        lap = np.array([r.laplace for r in self.rules_], dtype=np.float64)
        n_cover = cov.sum(axis=0)
        p_def, n_def = self.default_rule_
        default = (p_def + 1.0) / (p_def + n_def + 2.0)
        summed = lap @ cov if len(lap) else np.zeros(cov.shape[1])
        covered = n_cover > 0
        return covered, np.where(covered, summed / np.maximum(n_cover, 1), default)

    def predict_proba(self, X):
        """Probability of each class per bag.

        The positive probability of a covered bag is the mean Laplace-corrected
        precision ``(p + 1) / (p + n + 2)`` of the rules that cover it; an
        uncovered bag gets the default rule's (Laplace-corrected) positive rate.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        proba : ndarray of shape (n_bags, 2)
            Columns follow ``classes_``.
        """
        _, score = self._positive_scores(self._rule_coverage(X))
        return self._proba_from_positive(score)

    def decision_function(self, X):
        """Signed confidence; positive values mean ``classes_[1]``.

        For the rules' class the score is the mean Laplace precision of the
        covering rules (in (0, 1)) for covered bags and ``rate - 1`` (in
        (-1, 0)) for uncovered ones, ``rate`` being the default rule's
        positive rate: its sign is the rule-set prediction and it ranks
        covered bags by the confidence of their rules.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        scores : ndarray of shape (n_bags,)
        """
        covered, score = self._positive_scores(self._rule_coverage(X))
        signed = np.where(covered, score, score - 1.0)
        return signed if self._pos_index == 1 else -signed

    def predict(self, X):
        """Predict each bag's label: the rules' class iff some rule covers the bag.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        y : ndarray of shape (n_bags,)
        """
        return self._labels_from_positive(self._rule_coverage(X).any(axis=0))

    def export_text(self, feature_names=None):
        """The rule set as text, one rule per line, then the default rule.

        Parameters
        ----------
        feature_names : sequence of str, default=None
            Names of the features (``f0``, ``f1``, ... when None).

        Returns
        -------
        text : str
            Lines ``IF f12 <= 3.5 AND f40 >= -10 THEN positive  [p+, n-]``
            (p, n: positive and negative training bags covered) and a last
            line ``ELSE negative  [p+, n-]`` for the bags no rule covers.
        """
        check_is_fitted(self, "rules_")
        if feature_names is not None and len(feature_names) != self.n_features_in_:
            raise ValueError(f"feature_names has {len(feature_names)} names; the model was fitted "
                             f"on {self.n_features_in_} features")
        return format_rules(self.rules_, feature_names, default=self.default_rule_)


class _Ripper:
    """One fit: the training bags, their sorted feature orders and the RIPPER phases.

    Rules are tuples of ``(feature, op, threshold)`` conditions here; bag
    coverage of a rule is cached by its conditions.
    """

    def __init__(self, est, bags, pos, rng, threads=None):
        self.est = est
        # Serial unless the caller owns a pool (and closes it).
        self.threads = RowThreads(None, bags.n_features) if threads is None else threads
        self.rng = rng
        self.X = bags.instances
        self.offsets = bags.offsets
        self.inst_bag = bags.instance_bag
        self.pos = np.asarray(pos, dtype=bool)
        self.bag_pos = self.pos.astype(np.uint8)
        self.n_bags = bags.n_bags
        # Each feature's instances in sorted order (stable), with their values and
        # bags pre-sorted so the condition search reads them contiguously.
        columns = np.ascontiguousarray(self.X.T)
        self.order = np.argsort(columns, axis=1, kind="stable")
        self.sorted_vals = np.take_along_axis(columns, self.order, axis=1)
        self.sorted_bag = np.ascontiguousarray(self.inst_bag[self.order])
        # Possible conditions: two operators per distinct value of each feature.
        distinct = 1 + (np.diff(self.sorted_vals, axis=1) > 0).sum(axis=1)
        self.n_conditions = max(2.0 * float(distinct.sum()), 1.0)
        self.exp_fp_over_err = float(self.pos.mean())
        self._cache = {}

    # -- coverage and description length --------------------------------------
    def coverage(self, conds):
        """Boolean bag coverage of one rule (cached)."""
        cov = self._cache.get(conds)
        if cov is None:
            rule_ptr, f, o, t = pack_rules([conds])
            cov = kernel("_rule_split").ruleset_coverage(
                self.X, self.offsets, rule_ptr, f, o, t)[0].astype(bool)
            self._cache[conds] = cov
        return cov

    def coverages(self, rules):
        if not rules:
            return np.zeros((0, self.n_bags), dtype=bool)
        return np.array([self.coverage(c) for c in rules])

    def covered_by(self, rules):
        cov = np.zeros(self.n_bags, dtype=bool)
        for c in rules:
            cov |= self.coverage(c)
        return cov

    def dl(self, rules):
        """Description length of a rule set on all training bags (Cohen's encoding)."""
        cov = self.covered_by(rules)
        cover = int(cov.sum())
        fp = int((cov & ~self.pos).sum())
        fn = int((~cov & self.pos).sum())
        return ruleset_dl([len(c) for c in rules], self.n_conditions, self.exp_fp_over_err,
                          cover, self.n_bags - cover, fp, fn)

    # -- IREP* pieces -----------------------------------------------------------
    def split(self, mask):
        """Stratified random grow / prune split of the bags in `mask`."""
        grow = np.zeros(self.n_bags, dtype=bool)
        prune = np.zeros(self.n_bags, dtype=bool)
        for cls in (self.pos, ~self.pos):
            idx = self.rng.permutation(np.flatnonzero(mask & cls))
            n_prune = int(math.floor(idx.shape[0] * self.est.prune_ratio + 0.5))
            n_prune = min(n_prune, max(idx.shape[0] - 1, 0))  # keep one bag of each class to grow on
            prune[idx[:n_prune]] = True
            grow[idx[n_prune:]] = True
        return grow, prune

    def _holds(self, cond):
        f, op, t = cond
        col = self.X[:, f]
        return col >= t if op else col <= t

    def _lrs_ok(self, p, n, P, N):
        """CN2 likelihood-ratio statistic of covered counts (p, n) against the prior (P, N)."""
        total = p + n
        stat = np.zeros_like(p)
        for obs, prior in ((p, P / (P + N)), (n, N / (P + N))):
            expected = total * prior
            with np.errstate(divide="ignore", invalid="ignore"):
                term = np.where(obs > 0, obs * np.log(obs / np.where(expected > 0, expected, 1.0)), 0.0)
            stat = stat + term
        return 2.0 * stat >= self.est.lrs_threshold

    def grow(self, grow_mask, init=()):
        """Grow a rule from `init` on the growing bags (beam search; width 1 is greedy FOIL)."""
        split_kernel, counts = kernel("_rule_split"), kernel("_bag_counts")
        ones = np.ones(self.n_bags, dtype=np.float64)
        P = float((grow_mask & self.pos).sum())
        N = float((grow_mask & ~self.pos).sum())
        active = grow_mask[self.inst_bag]
        for cond in init:
            active = active & self._holds(cond)
        width = self.est.beam_width
        # Beam entries: (summed gain, conditions, active instances, finished).
        beam = [(0.0, tuple(init), active, False)]
        while not all(entry[3] for entry in beam):
            pool = []
            for value, conds, act, done in beam:
                if done:
                    pool.append((value, conds, act, True))
                    continue
                p0, n0 = counts.distinct_bag_weights(self.inst_bag[act], self.bag_pos, ones)
                if p0 == 0 or n0 == 0:
                    pool.append((value, conds, act, True))
                    continue
                gain, thr, p, n = self._best_conditions(split_kernel, act.astype(np.uint8), p0, n0)
                if self.est.use_lrs:
                    gain = np.where(self._lrs_ok(p, n, P, N), gain, 0.0)
                flat = gain.ravel()
                # Highest gain first; ties in (feature, operator) order.
                ranked = np.argsort(-flat, kind="stable")[:width]
                ranked = ranked[flat[ranked] > 0.0]
                if ranked.shape[0] == 0:
                    pool.append((value, conds, act, True))
                    continue
                for idx in ranked:
                    f, op = divmod(int(idx), 2)
                    cond = (f, op, float(thr.ravel()[idx]))
                    pool.append((value + float(flat[idx]), conds + (cond,),
                                 act & self._holds(cond), False))
            # Stable sort keeps generation order among equal values.
            pool.sort(key=lambda entry: -entry[0])
            beam = pool[:width]
        return beam[0][1]

    def _best_conditions(self, split_kernel, active, p0, n0):
        """``best_conditions`` of every feature, rows shared out among the threads."""
        return self.threads.concat(
            lambda lo, hi: split_kernel.best_conditions(
                self.sorted_vals[lo:hi], self.order[lo:hi], active, self.sorted_bag[lo:hi],
                self.bag_pos, int(p0), int(n0), self.est.min_bags),
            cells=self.order.size)

    def prune(self, conds, prune_mask, whole_error=False):
        """Delete the final sequence of conditions that is best on the pruning bags.

        IREP's value ``(p - n) / (p + n)`` is maximised, or (optimisation
        phase) the rule set's error ``n + (P - p)`` on the pruning bags, which
        no other rule covers, is minimised. Ties keep the shorter rule.
        """
        if len(conds) <= 1 or not prune_mask.any():
            return conds
        rule_ptr, f, o, t = pack_rules([conds])
        cov = kernel("_rule_split").prefix_coverage(self.X, self.offsets, f, o, t).astype(bool)
        cov &= prune_mask
        p = (cov & self.pos).sum(axis=1)
        n = (cov & ~self.pos).sum(axis=1)
        if whole_error:
            P = int((prune_mask & self.pos).sum())
            best = int(np.argmin(n + (P - p)))
        else:
            best = int(np.argmax(kernel("_rule_split").prune_metric(p, n)))
        return conds[:best + 1]

    # -- RIPPER phases ----------------------------------------------------------
    def build(self, rules):
        """IREP* with the MDL stop: add rules for the positives no rule covers."""
        rules = list(rules)
        dl_min = self.dl(rules)
        while True:
            remaining = ~self.covered_by(rules)
            if not (remaining & self.pos).any():
                break
            grow_mask, prune_mask = self.split(remaining)
            conds = self.grow(grow_mask)
            if not conds:
                break
            conds = self.prune(conds, prune_mask)
            cov = self.coverage(conds) & prune_mask
            p, n = int((cov & self.pos).sum()), int((cov & ~self.pos).sum())
            if p + n > 0 and n / (p + n) > 0.5:
                break
            rules.append(conds)
            dl = self.dl(rules)
            if dl > dl_min + MAX_DL_SURPLUS:
                break
            dl_min = min(dl_min, dl)
        return rules

    def reduce_dl(self, rules):
        """Delete, last first, each rule whose removal does not increase the DL
        or whose error on the bags earlier rules leave exceeds 50 %."""
        rules = list(rules)
        for i in range(len(rules) - 1, -1, -1):
            without = rules[:i] + rules[i + 1:]
            left = ~self.covered_by(rules[:i])
            cov = self.coverage(rules[i]) & left
            covered, fp = int(cov.sum()), int((cov & ~self.pos).sum())
            over_error = covered > 0 and fp / covered >= 0.5
            if over_error or self.dl(without) <= self.dl(rules):
                rules = without
        return rules

    def optimise(self, rules):
        """One optimisation round: replacement and revision of every rule, chosen by DL."""
        rules = list(rules)
        for i in range(len(rules)):
            others = rules[:i] + rules[i + 1:]
            free = ~self.covered_by(others)
            if not (free & self.pos).any():
                continue
            grow_mask, prune_mask = self.split(free)
            variants = [rules[i]]
            replacement = self.grow(grow_mask)
            if replacement:
                variants.append(self.prune(replacement, prune_mask, whole_error=True))
            revision = self.prune(self.grow(grow_mask, rules[i]), prune_mask, whole_error=True)
            variants.append(revision)
            dls = [self.dl(rules[:i] + [v] + rules[i + 1:]) for v in variants]
            rules[i] = variants[int(np.argmin(dls))]  # ties keep the earlier variant
        return rules

    def run(self):
        rules = self.reduce_dl(self.build([]))
        for _ in range(self.est.k):
            rules = self.reduce_dl(self.build(self.optimise(rules)))
        return rules
