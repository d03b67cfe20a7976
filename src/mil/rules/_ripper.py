"""RIPPER-MI: RIPPER rule induction with bag-level coverage, for any number of classes.

RIPPER (Cohen 1995, "Fast Effective Rule Induction") learns a set of rules
for one class against the rest:

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

More than one class is handled by sequential covering class by class
(Clark & Niblett 1989, "The CN2 induction algorithm"; Clark & Boswell 1991,
"Rule induction with CN2: some recent improvements"): in the unordered mode
every class in turn is the positive class against all the others, and only
the bags of that class a rule covers are removed; in the ordered mode (as
Weka's JRip) the classes are taken by increasing frequency, everything a
class's rules cover is removed before the next class, and the last class is
the default.

Multi-instance learning (Chevaleyre & Zucker 2001, "Solving multiple-instance
and multiple-part learning problems with decision trees and rule sets"): a
rule covers a bag iff it covers one of its instances, and every count is a
count of bags. The collective assumption instead learns the rules on the
instances (each labelled with its bag's class) and scores a bag by the mean
of its instances' class probabilities. The condition search runs in the
``_rule_split`` kernel.
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._core import kernel
from mil.bags import Bags
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.rules._mdl import MAX_DL_SURPLUS, ruleset_dl
from mil.rules._rule import format_rules, pack_rules
from mil.rules._ruleset import coverage, make_rules, most_probable, score_units
from mil.tree._rows import AUTO_HIST_INSTANCES, BinnedRows
from mil.utils._docstrings import fill_doc
from mil.utils._threads import RowThreads
from mil.utils.validation import check_bag_labels, check_bags, printed_feature_names, set_feature_names

__all__ = ["RipperMIClassifier"]


@fill_doc
class RipperMIClassifier(InstanceOutputMixin, BaseBagClassifier):
    """RIPPER rule learner for multi-instance data (RIPPER-MI), any number of classes.

    By default it learns an unordered rule set, class by class, on the
    instances labelled with their bag's class and weighted so that every bag
    weighs the same (``weighting="bag"``), with Weka JRip's smoothed
    estimates, and scores a bag by the mean of its instances' class
    probabilities (``assumption="collective"``), as Weka's MIWrapper does
    with JRip. With
    ``assumption="standard", rule_order="ordered", smoothing=False,
    error_check="prune"`` and two classes it is RIPPER-MI as Chevaleyre &
    Zucker (2001): rules
    ``IF x_f <= t AND ... THEN <positive class>``, and a bag is predicted
    positive iff some rule covers one of its instances. With one instance
    per bag it is plain RIPPER (Cohen 1995).

    Parameters
    ----------
    k : int, default=2
        Number of optimisation rounds (0 gives IREP* with the MDL stop).
    prune_ratio : float, default=1/3
        Fraction of the bags (per class) held out to prune each rule, as in
        RIPPER and Weka's JRip (:doc:`/results/rules` compares other
        shares on the shipped sets).
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
    smoothing : bool, default=True
        Weka JRip's smoothed precision estimates: FOIL's gain with
        ``(p + 1) / (p + n + 1)`` in place of ``p / (p + n)`` and the pruning
        value ``(p + 1) / (p + n + 2)`` in place of ``(p - n) / (p + n)``.
    error_check : {"remaining", "prune"}, default="remaining"
        Where a new rule's error rate is checked against 50 % to stop the
        building phase: on the pruning bags (Cohen 1995) or on all the bags
        still to cover (Weka's JRip).
    rule_order : {"unordered", "ordered"}, default="unordered"
        ``"ordered"``: a rule list as JRip's. With two classes the rules
        describe the positive class (``positive_class``) and the other class
        is the default; with more, the classes are learned by increasing
        frequency (each against the classes after it, on the bags the
        earlier rules leave) and the most frequent class is the default.
        The first rule covering a bag decides. ``"unordered"``: a rule set
        for every class against all others (sequential covering class by
        class: a rule removes only the bags of its class it covers);
        conflicts are resolved by ``conflict``.
    conflict : {"laplace-vote", "first", "shortest"}, default="laplace-vote"
        Unordered mode, a bag covered by rules of several classes:
        ``"laplace-vote"`` predicts the class of highest probability
        (``predict_proba``; ties to the class learned first), ``"first"`` the
        class of the first covering rule in ``rules_``, ``"shortest"`` that of the covering rule with the
        fewest conditions (ties: higher Laplace estimate, then first).
    assumption : {"collective", "standard"}, default="collective"
        ``"standard"``: a rule covers a bag iff it covers one of its
        instances, counts are bags (Chevaleyre & Zucker 2001).
        ``"collective"``: the rules are learned on the instances, each with
        its bag's label, and a bag's class probabilities are the mean of its
        instances' (as Weka's MIWrapper); counts are instances (weighted by
        ``weighting``).
    weighting : {"bag", "inverse_size", "uniform"}, default="bag"
        ``assumption="collective"`` only (ignored with ``"standard"``, where
        every bag counts once): the weight of each instance in the counts,
        as :class:`~mil.wrappers.MIWrapperClassifier`'s ``weighting`` (Weka
        MIWrapper's ``-A``). ``"bag"``: an instance of a bag of n_b
        instances weighs N / (B n_b), N instances and B bags in all, so
        every bag weighs the average bag size and the mean instance weight
        is 1 (MIWrapper's default); ``"inverse_size"``: 1 / n_b, every bag
        weighs 1; ``"uniform"``: 1, large bags weigh more. ``min_bags``, the
        smoothing and the description length take the weighted counts, as
        JRip does.
    positive_class : label, default=None
        Two classes only: the class the rules describe in the ordered mode
        (``classes_[1]`` when None); the unordered mode learns rules for
        both classes and does not use it.
    random_state : int, RandomState instance or None, default=None
        Seeds the grow/prune splits.
    class_weight : "balanced", dict or None, default=None
        Weight of each class's bags (scikit-learn's convention: "balanced"
        weighs class c by ``n_bags / (n_classes * n_bags_c)``), multiplied
        into ``sample_weight``.
    n_jobs : int or None, default=None
        Threads sharing out the features of the condition search (the
        compiled kernel runs without the GIL); None is 1, -1 one per core.
        The rules do not depend on it.
    condition_search : {"auto", "exact", "hist"}, default="auto"
        Where a condition's threshold may fall. ``"exact"``: between any two
        distinct values of a feature among the instances the rule covers
        (RIPPER as published); each feature is sorted once per fit.
        ``"hist"``: between two of the feature's quantile bins (at most 255,
        those of the trees' histogram split search and of scikit-learn's
        HistGradientBoosting); a search costs one pass over the covered
        instances per feature, without sorting, and the bins take one byte
        an instance and feature. A feature with at most 255 distinct values
        gets one bin per value: its candidate cuts then split the covered
        instances as the exact search's do, with the same gains, and only a
        threshold can differ (a bin edge where a bin holds no covered
        instance, not the midpoint of two covered values). ``"auto"``:
        ``"hist"`` above 10,000 training instances, ``"exact"`` up to that
        (so every shipped set is searched exactly).
        :doc:`/results/foundation` has the cost on large data.

    Attributes
    ----------
    rules_ : list of Rule
        The learned rules, class by class in learning order (the decision
        list in the ordered mode; ``classes_`` order in the unordered mode,
        except that with two classes the positive class comes last). ``rule.label`` is the rule's class,
        ``rule.conditions`` are ``(feature, op, threshold)`` named tuples
        (op 0: ``<=``, op 1: ``>=``), ``rule.counts`` the training bags of
        each class (``classes_`` order; sums of weights when fitted with
        weights) the rule covers among those its class
        was learned on (ordered mode: the bags earlier classes' rules leave;
        otherwise all) and ``rule.p`` / ``rule.n`` those of its class / of
        the other classes.
    default_rule_ : Rule
        A rule without conditions: its ``label`` is predicted for the bags
        no rule covers and its ``counts`` are the training bags no rule
        covers, per class.
    condition_search_ : {"exact", "hist"}
        The condition search used (``condition_search``, resolved by size for "auto").
    [classes attributes]

    See Also
    --------
    mil.tree.C45MIClassifier : A multi-instance decision tree on the same bag counts.
    mil.wrappers.MIWrapperClassifier : Weka's MIWrapper around any scikit-learn classifier.

    Notes
    -----
    ``predict_proba``: every rule has a Laplace-corrected class distribution
    ``(counts + 1) / (p + n + n_classes)`` (counts on the bags its class
    was learned on). A covered bag gets the mean
    distribution of the rules covering it (unordered mode), or of the rules
    of the deciding rule's class that cover it (ordered mode); an uncovered
    bag the default rule's distribution.

    References
    ----------
    W. W. Cohen (1995). Fast effective rule induction. *Proceedings of the
    Twelfth International Conference on Machine Learning (ICML 1995)*,
    115-123.

    [chevaleyre2001]

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
    >>> clf = RipperMIClassifier(assumption="standard", rule_order="ordered", smoothing=False,
    ...                          error_check="prune", random_state=0).fit(X, y)
    >>> print(clf.export_text())
    IF x0 >= 1.49097 THEN class: 1 (bags: 0=0, 1=20; p=0.95)
    ELSE class: 0 (bags: 0=20, 1=0; p=0.95)
    >>> clf.score(X, y)
    1.0
    """

    _binary_only = False

    _parameter_constraints = {
        "k": [Interval(Integral, 0, None, closed="left")],
        "prune_ratio": [Interval(Real, 0, 1, closed="neither")],
        "min_bags": [Interval(Integral, 1, None, closed="left")],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
        "use_lrs": ["boolean"],
        "lrs_threshold": [Interval(Real, 0, None, closed="left")],
        "smoothing": ["boolean"],
        "error_check": [StrOptions({"prune", "remaining"})],
        "rule_order": [StrOptions({"ordered", "unordered"})],
        "conflict": [StrOptions({"laplace-vote", "first", "shortest"})],
        "assumption": [StrOptions({"standard", "collective"})],
        "weighting": [StrOptions({"bag", "inverse_size", "uniform"})],
        "positive_class": "no_validation",
        "random_state": ["random_state"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "n_jobs": [Integral, None],
        "condition_search": [StrOptions({"auto", "exact", "hist"})],
    }

    def __init__(self, k=2, prune_ratio=1 / 3, min_bags=2, beam_width=1, use_lrs=False,
                 lrs_threshold=3.84, smoothing=True, error_check="remaining", rule_order="unordered",
                 conflict="laplace-vote", assumption="collective", weighting="bag",
                 positive_class=None, random_state=None, class_weight=None, n_jobs=None,
                 condition_search="auto"):
        keep_params(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Learn the rule set.

        [fit bags]
        y : array-like of shape (n_bags,)
            Two or more classes.
        sample_weight : array-like of shape (n_bags,), default=None
            Non-negative weight of each bag (times ``class_weight``): every
            count of the rule learner (FOIL gain, pruning value, error
            checks, description length, rule counts) is a sum of weights,
            as in Weka's JRip. A bag of weight 0 is left out. None (with
            ``class_weight=None``) counts every bag once.

        Returns
        -------
        self : RipperMIClassifier
            The fitted rule learner.
        """
        self._validate_params()
        name = type(self).__name__
        bags = check_bags(X, estimator=name)
        classes, y_idx = check_bag_labels(y, bags.n_bags, positive_class=self.positive_class,
                                          estimator=name)
        n_classes = classes.shape[0]
        if n_classes == 2:
            # Binary label conventions (and positive_class) as every binary learner.
            _, y_bin = check_bag_labels(y, bags.n_bags, binary=True,
                                        positive_class=self.positive_class, estimator=name)
            pos_idx = int(y_idx[np.flatnonzero(y_bin == 1)[0]])
        self.classes_ = classes
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        bags, y_idx, weight = self._drop_zero_weight(bags, y_idx, self._bag_weights(sample_weight, y, bags.n_bags))
        if self.assumption == "collective":
            # Instances in a canonical order (by bag, then lexicographically), so that the
            # random grow/prune splits do not depend on the order of instances in a bag.
            X = bags.instances
            if bags.n_instances == bags.n_bags:
                canon = np.arange(bags.n_instances)   # one instance per bag: already canonical
            else:
                keys = [X[:, j] for j in range(X.shape[1] - 1, -1, -1)] + [bags.instance_bag]
                canon = np.lexsort(keys)
            learn = Bags.from_instances(X[canon], np.arange(bags.n_instances))
            y_learn = y_idx[bags.instance_bag[canon]]
            weight = self._instance_weights(bags, weight)
            weight = None if weight is None else weight[canon]
        else:
            learn, y_learn = bags, y_idx
        # What the rules' counts count, for their printed form.
        # Weights all 1 are counts.
        weighted = weight is not None and not (weight == 1.0).all()
        self._count_unit = (("instance weight" if weighted else "instances") if self.assumption == "collective"
                            else ("bag weight" if weighted else "bags"))
        counts = (np.bincount(y_learn, minlength=n_classes) if weight is None
                  else np.bincount(y_learn, weights=weight, minlength=n_classes))
        self.condition_search_ = ("hist" if self.condition_search == "hist" or (
            self.condition_search == "auto" and learn.n_instances > AUTO_HIST_INSTANCES) else "exact")
        rng = check_random_state(self.random_state)
        rules = []   # (class index, conditions, bags its counts are taken on or None for all)
        with RowThreads(self.n_jobs, bags.n_features) as threads:
            if self.rule_order == "ordered":
                if n_classes == 2:
                    order, default = [pos_idx], 1 - pos_idx
                else:
                    by_freq = sorted(range(n_classes), key=lambda c: (counts[c], c))
                    order, default = by_freq[:-1], by_freq[-1]
                left = np.arange(learn.n_bags)
                for c in order:
                    if not (y_learn[left] == c).any():
                        continue
                    sub = learn if left.shape[0] == learn.n_bags else learn.subset(left)
                    learner = _Ripper(self, sub, y_learn[left] == c, rng, threads,
                                      weight=None if weight is None else weight[left],
                                      condition_search=self.condition_search_)
                    conds = learner.run()
                    scope = None if left.shape[0] == learn.n_bags else left
                    rules.extend((c, cd, scope) for cd in conds)
                    left = left[~learner.covered_by(conds)]
            else:
                learner = None
                for c in self._class_order():
                    pos = y_learn == c
                    learner = (_Ripper(self, learn, pos, rng, threads, keep_negatives=True, weight=weight,
                                       condition_search=self.condition_search_)
                               if learner is None else learner.for_class(pos))
                    rules.extend((c, cd, None) for cd in learner.run())
                default = None
        self.rules_, self.default_rule_ = make_rules(learn, y_learn, rules, default, classes,
                                                     self._class_order(), weight)
        return self

    def _instance_weights(self, bags, weight):
        """Weight of each instance (in bag order) for the collective assumption.

        The bag weight (None: 1) times the ``weighting`` factor; None when
        every weight is 1.
        """
        if self.weighting == "uniform":
            return None if weight is None else weight[bags.instance_bag]
        sizes = np.diff(bags.offsets).astype(np.float64)
        if self.weighting == "bag" and (sizes == sizes[0]).all():
            factor = np.ones_like(sizes)   # bags of one size: every instance weighs 1, exactly
        else:
            factor = 1.0 / sizes
            if self.weighting == "bag":
                factor = factor * (bags.n_instances / bags.n_bags)
        if weight is None and (factor == 1.0).all():
            return None   # the unweighted path (same rules, faster)
        per_bag = factor if weight is None else weight * factor
        return per_bag[bags.instance_bag]

    def _class_order(self):
        """Classes in the order the unordered mode learns them (and breaks ties).

        ``classes_`` order; with two classes the positive class
        (``positive_class``, else ``classes_[1]``) last, so that naming the
        positive class is the same model as relabelling.
        """
        if self.classes_.shape[0] == 2:
            pos = self._pos_index
            return np.array([1 - pos, pos], dtype=np.intp)
        return np.arange(self.classes_.shape[0], dtype=np.intp)

    def _bag_scores(self, X):
        """Class probabilities and decided class index of each bag."""
        bags = self._validate_predict(X)
        collective = self.assumption == "collective"
        units = Bags.from_instances(bags.instances, np.arange(bags.n_instances)) if collective else bags
        proba, decided = score_units(self.rules_, self.default_rule_, self.classes_, coverage(self.rules_, units),
                                     self._class_order(), self.rule_order, self.conflict)
        if collective:
            proba = np.add.reduceat(proba, bags.offsets[:-1], axis=0) / np.diff(bags.offsets)[:, None]
            decided = most_probable(proba, self._class_order())
        return proba, decided

    def predict_proba(self, X):
        """Predict the probability of each class per bag.

        A covered bag gets the mean Laplace-corrected class distribution
        ``(counts + 1) / (p + n + n_classes)`` of the rules that cover it (in
        the ordered mode only the rules of the class of the first covering
        rule); an uncovered bag gets the default rule's distribution. With
        ``assumption="collective"``: the mean over the bag's instances.

        [predicted probabilities]
        """
        return self._bag_scores(X)[0]

    def predict(self, X):
        """Predict each bag's label.

        Ordered mode: the class of the first rule covering the bag, else the
        default rule's. Unordered mode: as ``conflict`` says, the default
        rule's class for uncovered bags. Collective assumption: the class of
        highest probability.

        [predicted labels]
        """
        decided = self._bag_scores(X)[1]
        return self.classes_[decided]

    def decision_function(self, X):
        """Compute the signed confidence (two classes) or the class probabilities (more).

        With two classes, positive values mean ``classes_[1]``: the
        probability of the predicted class, with the sign of the prediction
        (in the ordered mode the mean Laplace precision of the covering rules
        for covered bags, ``rate - 1`` for uncovered ones, ``rate`` being the
        default rule's rate of the rules' class). With more classes:
        ``predict_proba``.

        [bags to score]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: larger favours ``classes_[1]``. More: per class.
        """
        proba, decided = self._bag_scores(X)
        if self.classes_.shape[0] > 2:
            return proba
        p1 = proba[:, 1]
        return np.where(decided == 1, p1, p1 - 1.0)

    def export_text(self, feature_names=None, max_lines=None):
        """The rule set as text, one rule per line, then the default rule.

        Parameters
        ----------
        feature_names : sequence of str, default=None
            Names of the features. Default: the ``feature_names_in_`` the
            model was fitted with (DataFrame bags,
            :func:`mil.datasets.from_frame`, a :class:`~mil.Bags` with
            ``feature_names``), else ``x0``, ``x1``, ... (the column index).
        max_lines : int or None, default=None
            As in :func:`mil.tree.export_text`: a longer printout is cut, with a last line saying so.

        Returns
        -------
        text : str
            Lines ``IF x12 <= 3.5 AND x40 >= -10 THEN class: <label>
            (bags: <label>=<count>, ...; p=<probability>)``: the rule's class
            as ``classes_`` holds it, the training items of each class the
            rule covers (among those its class was learned on) and the
            rule's Laplace estimate of its class, then a last line ``ELSE
            class: <label> (...)`` with the items no rule covers. The items
            are bags under ``assumption="standard"`` and instances under
            ``"collective"`` (``instance weight`` where the instances are
            weighted, ``bag weight`` for bags fitted with sample weights).
            The unordered mode puts a line ``rules for class <label>:``
            before each class's rules.
        """
        check_is_fitted(self, "rules_")
        names = printed_feature_names(self, feature_names)
        return format_rules(self.rules_, names, default=self.default_rule_, classes=self.classes_,
                            by_class=self.rule_order == "unordered", unit=getattr(self, "_count_unit", "bags"),
                            max_lines=max_lines)


class _Ripper:
    """One class against the rest: the training bags, their sorted feature orders and the RIPPER phases.

    Rules are tuples of ``(feature, op, threshold)`` conditions here; bag
    coverage of a rule is cached by its conditions. With ``keep_negatives``
    (unordered rule sets) an accepted rule removes only the positive bags
    it covers; otherwise (RIPPER) every bag it covers. `condition_search`
    ("exact" or "hist", resolved by the estimator) picks the data the
    conditions are searched on: sorted feature orders or bin codes.
    """

    def __init__(self, est, bags, pos, rng, threads=None, keep_negatives=False, weight=None,
                 condition_search="exact"):
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
        # Bag weights: every count below is a sum of them (JRip sums instance
        # weights). None: unit weights, counts of bags.
        self.weight = None if weight is None else np.asarray(weight, dtype=np.float64)
        self.w = np.ones(self.n_bags) if weight is None else self.weight
        self.total = float(self.w.sum())
        split_kernel = kernel("_rule_split")
        if condition_search == "hist":
            # Each feature's bin codes (the trees' quantile bins), read by the histogram search.
            rows = BinnedRows(self.X, threads=self.threads)
            self.binned = split_kernel.Binned(rows.codes, rows.edges, rows.n_bins, self.inst_bag, self.n_bags)
            self.presorted = None
            # Possible conditions: two operators per bin of each feature.
            self.n_conditions = max(2.0 * float(rows.n_bins.sum()), 1.0)
        else:
            # Each feature's instances in sorted order (stable), with their values and
            # bags pre-sorted so the condition search reads them contiguously.
            self.binned = None
            self.presorted = split_kernel.presort(self.X, self.offsets)
            # Possible conditions: two operators per distinct value of each feature.
            distinct = 1 + (np.diff(self.presorted.sorted_vals, axis=1) > 0).sum(axis=1)
            self.n_conditions = max(2.0 * float(distinct.sum()), 1.0)
        self.exp_fp_over_err = self._share(self.pos)
        self.keep_negatives = keep_negatives
        self._cache = {}
        self._scope_cache = None   # (compacted presorted, its instances, their mask): see _scope_data

    def for_class(self, pos):
        """The same bags, sorted orders and coverage cache, with other positive bags."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.pos = np.asarray(pos, dtype=bool)
        other.bag_pos = other.pos.astype(np.uint8)
        other.exp_fp_over_err = other._share(other.pos)
        return other

    def _share(self, pos):
        """Weighted share of the positive bags (their fraction with unit weights)."""
        if self.weight is None:
            return float(pos.mean())
        return float(self.w[pos].sum() / self.total)

    def wsum(self, mask):
        """Weight of the bags in `mask` (a count with unit weights); rows of a 2-D mask."""
        if self.weight is None:
            return mask.sum(axis=-1)
        return mask @ self.w

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

    def left(self, rules):
        """Bags still to learn from once `rules` are accepted."""
        cov = self.covered_by(rules)
        return ~(cov & self.pos) if self.keep_negatives else ~cov

    def dl(self, rules):
        """Description length of a rule set on all training bags (Cohen's encoding)."""
        cov = self.covered_by(rules)
        cover = self.wsum(cov)
        fp = self.wsum(cov & ~self.pos)
        fn = self.wsum(~cov & self.pos)
        return ruleset_dl([len(c) for c in rules], self.n_conditions, self.exp_fp_over_err,
                          cover, self.total - cover, fp, fn)

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

    def _scope_data(self, scope):
        """Sorted orders holding every instance of the bags in `scope`, and their indices.

        A compacted copy of the instances of `scope` (the bags still to learn
        from, of which the growing bags are a part) is made when they are
        under half of the instances in the smallest copy that holds them, and
        kept for the next rules: the bags to learn from only shrink while
        rules are added, so each grow searches at most twice its scope.
        """
        split_kernel = kernel("_rule_split")
        inst = scope[self.inst_bag]
        m = int(inst.sum())
        presorted, kept = self.presorted, None
        cached = self._scope_cache
        if cached is not None:
            c_presorted, c_kept, c_mask = cached
            if not (inst & ~c_mask).any():
                presorted, kept = c_presorted, c_kept
        if 2 * m < presorted.order.shape[1]:
            local = inst if kept is None else inst[kept]
            presorted = split_kernel.compact(presorted, local)
            kept = np.flatnonzero(inst)
            self._scope_cache = (presorted, kept, inst)
        return presorted, kept

    def grow(self, grow_mask, init=(), scope=None):
        """Grow a rule from `init` on the growing bags (beam search; width 1 is greedy FOIL).

        `scope`: bags that hold the growing bags (those still to learn from);
        their compacted sorted orders are searched (see :meth:`_scope_data`).
        """
        split_kernel, counts = kernel("_rule_split"), kernel("_bag_counts")
        P = float(self.wsum(grow_mask & self.pos))
        N = float(self.wsum(grow_mask & ~self.pos))
        active = grow_mask[self.inst_bag]
        for cond in init:
            active = active & self._holds(cond)
        width = self.est.beam_width
        # Beam entries: (summed gain, conditions, active instances, finished, searched data).
        # The searched data are sorted orders holding (at least) the entry's active
        # instances: the presorted training data, or a compacted copy of the instances
        # an earlier search covered, with their indices (None: all instances). The rule
        # only ever covers instances of `active`, and a search on a compacted copy sweeps
        # the same sequences, so it finds the same conditions in time proportional to
        # the instances kept.
        data = (self.presorted, None) if scope is None or self.binned is not None else (
            self._scope_data(scope | grow_mask))
        beam = [(0.0, tuple(init), active, False, data)]
        while not all(entry[3] for entry in beam):
            pool = []
            for value, conds, act, done, data in beam:
                if done:
                    pool.append((value, conds, act, True, data))
                    continue
                p0, n0 = counts.distinct_bag_weights(self.inst_bag[act], self.bag_pos, self.w)
                if p0 == 0 or n0 == 0:
                    pool.append((value, conds, act, True, data))
                    continue
                gain, thr, p, n, next_data = self._best_conditions(split_kernel, data, act, p0, n0)
                if self.est.use_lrs:
                    gain = np.where(self._lrs_ok(p, n, P, N), gain, 0.0)
                flat = gain.ravel()
                # Highest gain first; ties in (feature, operator) order.
                ranked = np.argsort(-flat, kind="stable")[:width]
                ranked = ranked[flat[ranked] > 0.0]
                if ranked.shape[0] == 0:
                    pool.append((value, conds, act, True, data))
                    continue
                for idx in ranked:
                    f, op = divmod(int(idx), 2)
                    cond = (f, op, float(thr.ravel()[idx]))
                    pool.append((value + float(flat[idx]), conds + (cond,),
                                 act & self._holds(cond), False, next_data))
            # Stable sort keeps generation order among equal values.
            pool.sort(key=lambda entry: -entry[0])
            beam = pool[:width]
        return beam[0][1]

    def _best_conditions(self, split_kernel, data, act, p0, n0):
        """``best_conditions`` of every feature, rows shared out among the threads.

        `data` is ``(presorted, kept)``: sorted orders holding the instances
        ``kept`` (None: all) and at least those of `act` (the histogram
        search reads the bin codes of all instances, and keeps `data`). Returns the search's
        gain, threshold, p and n, and the data to search the children of the
        rule in: when the covered instances are under half of those in
        `presorted`, their compacted copy, which the search writes on the way.
        """
        if self.binned is not None:
            active = act.astype(np.uint8)
            gain, thr, p, n = self.threads.concat(
                lambda lo, hi: split_kernel.best_binned_conditions(
                    self.binned, active, self.bag_pos, float(p0), float(n0), self.est.min_bags,
                    int(self.est.smoothing), self.weight, lo, hi),
                cells=int(active.sum()) * self.binned.shape[0])
            return gain, thr, p, n, data
        presorted, kept = data
        active = (act if kept is None else act[kept]).astype(np.uint8)
        m = int(active.sum())
        out = None
        if 2 * m < presorted.order.shape[1]:
            d = presorted.order.shape[0]
            out = (np.empty((d, m)), np.empty((d, m), np.int32), np.empty((d, m), np.int32))
        gain, thr, p, n = self.threads.concat(
            lambda lo, hi: split_kernel.best_conditions(
                presorted, active, self.bag_pos, float(p0), float(n0), self.est.min_bags,
                int(self.est.smoothing), self.weight, lo, hi, out=out),
            cells=presorted.order.size)
        if out is None:
            return gain, thr, p, n, data
        ids = np.flatnonzero(active)
        # Every row of `out` was written by the searches above (they cover all features).
        return gain, thr, p, n, (presorted._compacted_trusted(*out), ids if kept is None else kept[ids])

    def prune(self, conds, prune_mask, whole_error=False):
        """Delete the final sequence of conditions that is best on the pruning bags.

        IREP's value ``(p - n) / (p + n)`` (with ``smoothing``:
        ``(p + 1) / (p + n + 2)``) is maximised, or (optimisation phase) the rule set's error ``n + (P - p)`` on the pruning bags, which
        no other rule covers, is minimised. Ties keep the shorter rule.
        """
        if len(conds) <= 1 or not prune_mask.any():
            return conds
        rule_ptr, f, o, t = pack_rules([conds])
        cov = kernel("_rule_split").prefix_coverage(self.X, self.offsets, f, o, t).astype(bool)
        cov &= prune_mask
        p = self.wsum(cov & self.pos)
        n = self.wsum(cov & ~self.pos)
        if whole_error:
            P = self.wsum(prune_mask & self.pos)
            best = int(np.argmin(n + (P - p)))
        elif self.est.smoothing:
            best = int(np.argmax((p + 1.0) / (p + n + 2.0)))
        else:
            best = int(np.argmax(kernel("_rule_split").prune_metric(p, n)))
        return conds[:best + 1]

    # -- RIPPER phases ----------------------------------------------------------
    def build(self, rules):
        """IREP* with the MDL stop: add rules for the positives no rule covers."""
        rules = list(rules)
        dl_min = self.dl(rules)
        while True:
            remaining = self.left(rules)
            if not (remaining & self.pos).any():
                break
            grow_mask, prune_mask = self.split(remaining)
            conds = self.grow(grow_mask, scope=remaining)
            if not conds:
                break
            conds = self.prune(conds, prune_mask)
            if self.est.error_check == "remaining":
                # JRip: the rule's error on every bag still to cover, at least 50 % stops.
                cov = self.coverage(conds) & remaining
                p, n = self.wsum(cov & self.pos), self.wsum(cov & ~self.pos)
                if p == 0 or n / (p + n) >= 0.5:
                    break
            else:
                cov = self.coverage(conds) & prune_mask
                p, n = self.wsum(cov & self.pos), self.wsum(cov & ~self.pos)
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
            left = self.left(rules[:i])
            cov = self.coverage(rules[i]) & left
            covered, fp = self.wsum(cov), self.wsum(cov & ~self.pos)
            over_error = covered > 0 and fp / covered >= 0.5
            if over_error or self.dl(without) <= self.dl(rules):
                rules = without
        return rules

    def optimise(self, rules):
        """One optimisation round: replacement and revision of every rule, chosen by DL."""
        rules = list(rules)
        for i in range(len(rules)):
            others = rules[:i] + rules[i + 1:]
            free = self.left(others)
            if not (free & self.pos).any():
                continue
            grow_mask, prune_mask = self.split(free)
            variants = [rules[i]]
            replacement = self.grow(grow_mask, scope=free)
            if replacement:
                variants.append(self.prune(replacement, prune_mask, whole_error=True))
            revision = self.prune(self.grow(grow_mask, rules[i], scope=free), prune_mask, whole_error=True)
            variants.append(revision)
            dls = [self.dl(rules[:i] + [v] + rules[i + 1:]) for v in variants]
            rules[i] = variants[int(np.argmin(dls))]  # ties keep the earlier variant
        return rules

    def run(self):
        rules = self.reduce_dl(self.build([]))
        for _ in range(self.est.k):
            rules = self.reduce_dl(self.build(self.optimise(rules)))
        return rules
