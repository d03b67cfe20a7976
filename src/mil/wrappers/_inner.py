"""The wrappers' inner estimator: its default, nested parameters, NaN and weight support."""

import warnings

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from mil.utils._docstrings import register
from mil.utils._seeds import SEED_MAX

__all__ = ["InnerEstimatorMixin", "bag_instance_weights", "fit_doc", "seed_unset", "weight_params"]

register("frank2003", """\
    References
    ----------
    E. Frank and X. Xu. Applying propositional learning algorithms to
    multi-instance data. Working paper, Department of Computer Science,
    University of Waikato, 2003.
""")


def fit_doc(y, sample_weight):
    """A wrapper's ``fit`` docstring after its summary, `y` and `sample_weight` described as given.

    A section for :func:`mil.utils._docstrings.fill_doc` (a callable of the
    class: ``Returns`` names it).
    """
    def indented(text):
        return "".join(f"        {line}\n" for line in text.splitlines())

    def section(cls):
        kind = "regressor" if issubclass(cls, RegressorMixin) else "classifier"
        return f"""    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        Training bags, all with the same number of features.
    y : array-like of shape (n_bags,)
{indented(y)}    sample_weight : array-like of shape (n_bags,), default=None
{indented(sample_weight)}
    Returns
    -------
    self : {cls.__name__}
        The fitted {kind}.
"""
    return section


def seed_unset(est, rng):
    """`est` with every ``random_state`` left at None set from `rng`, as scikit-learn's ensembles do.

    Parameters
    ----------
    est : estimator
        Changed in place (``set_params``); a ``random_state`` already set is kept.
    rng : numpy.random.RandomState

    Returns
    -------
    est : estimator
    """
    params = {k: int(rng.randint(SEED_MAX)) for k, v in sorted(est.get_params().items())
              if (k == "random_state" or k.endswith("__random_state")) and v is None}
    return est.set_params(**params) if params else est


def bag_instance_weights(bags, weighting, bag_weight=None):
    """The weight of each bag's instances under MIWrapper's `weighting` (Weka's ``-A``).

    Parameters
    ----------
    bags : Bags
    weighting : {"bag", "inverse_size", "uniform"}
        ``"bag"``: N / (B n_b) for a bag of n_b instances, N instances and
        B bags in all (every bag weighs the average bag size; the weights
        sum to N); ``"inverse_size"``: 1 / n_b (every bag weighs 1);
        ``"uniform"``: 1.
    bag_weight : ndarray of shape (n_bags,) or None, default=None
        Multiplies them.

    Returns
    -------
    per_bag : ndarray of float64 of shape (n_bags,)
        The weight of one instance of each bag.
    """
    sizes = bags.sizes.astype(np.float64)
    if weighting == "bag":
        per_bag = bags.n_instances / (bags.n_bags * sizes)
    elif weighting == "inverse_size":
        per_bag = 1.0 / sizes
    else:
        per_bag = np.ones(bags.n_bags)
    return per_bag if bag_weight is None else per_bag * bag_weight


def weight_params(est, weight):
    """``fit`` keyword arguments passing `weight` to `est`, or to every step of a Pipeline that takes it.

    Returns None when `est` cannot take sample weights.
    """
    if isinstance(est, Pipeline):
        steps = [name for name, step in est.steps
                 if step not in (None, "passthrough") and has_fit_parameter(step, "sample_weight")]
        last = est.steps[-1][0]
        if last not in steps:
            return None
        return {f"{name}__sample_weight": weight for name in steps}
    if has_fit_parameter(est, "sample_weight"):
        return {"sample_weight": weight}
    return None


class InnerEstimatorMixin:
    """An `estimator` parameter, cloned and fitted inside (mixed in before the bag base class).

    A subclass sets ``_inner_kind`` ("classifier" or "regressor", for the
    messages) and a static ``_default_estimator()``, made at fit when
    ``estimator=None``.
    """

    _inner_kind = "classifier"
    #: Whether the default inner estimator takes NaN (None: as its tags say).
    _default_allows_nan = None

    @property
    def _allow_nan(self):
        # As scikit-learn's meta-estimators: NaN is accepted iff the inner estimator accepts it.
        if self.estimator is None and self._default_allows_nan is not None:
            return self._default_allows_nan
        return bool(get_tags(self._inner_template()).input_tags.allow_nan)

    def _inner_template(self):
        return self.estimator if self.estimator is not None else self._default_estimator()

    def set_params(self, **params):
        """Set the parameters; ``estimator__<name>`` needs an explicit inner estimator.

        With ``estimator=None`` the default inner estimator is made at
        ``fit``, so there is no object to pass nested parameters to: give
        the inner estimator explicitly (also in a grid:
        ``{"estimator": [DecisionTreeRegressor(max_depth=d) for d in ...]}``
        or ``GridSearchCV(SimpleMIRegressor(estimator=...),
        {"estimator__max_depth": ...})``).

        Parameters
        ----------
        **params : dict
            Parameter names and values, as scikit-learn's ``set_params``.

        Returns
        -------
        self : estimator
            This estimator.
        """
        nested = sorted(k for k in params if k.startswith("estimator__"))
        if nested and params.get("estimator", self.estimator) is None:
            example = "DecisionTreeRegressor" if self._inner_kind == "regressor" else "DecisionTreeClassifier"
            raise ValueError(
                f"{type(self).__name__}(estimator=None) makes its default inner {self._inner_kind} at fit, "
                f"so {nested[0]} has no estimator to go to; pass the inner estimator explicitly, e.g. "
                f"{type(self).__name__}(estimator={example}()) with "
                f"{{'{nested[0]}': [...]}}, or tune 'estimator' itself")
        return super().set_params(**params)

    def _takes_weights(self, template, per_bag):
        """Whether the inner estimator `template` can be fitted with the instance weights.

        A Pipeline can when its last step's ``fit`` takes ``sample_weight``
        (see :func:`weight_params`).
        """
        return weight_params(template, per_bag) is not None

    def _instance_weights(self, bags, bag_weight):
        """MIWrapper's instance weights (`weighting` times the bag weights), or None to fit unweighted.

        None when every weight is 1, or, without bag weights, when the inner
        estimator takes no weights (then `weighting` is ignored, with a
        UserWarning).
        """
        per_bag = bag_instance_weights(bags, self.weighting, bag_weight)
        if bag_weight is None and np.all(per_bag == 1.0):
            return None  # every weight 1: fit unweighted
        if bag_weight is None and not self._takes_weights(self._inner_template(), per_bag):
            warnings.warn(
                f"{type(self).__name__}: {type(self._inner_template()).__name__} does not accept "
                f"sample_weight, so weighting={self.weighting!r} is ignored (every instance "
                "weighs 1)", UserWarning, stacklevel=3)
            return None
        return per_bag[bags.instance_bag]

    def _require_weight_support(self):
        """Raise a ValueError when the inner estimator's ``fit`` takes no ``sample_weight``."""
        if weight_params(self._inner_template(), None) is None:
            raise ValueError(f"{type(self).__name__}: sample_weight was given but the inner "
                             f"estimator {type(self._inner_template()).__name__} does not accept it")
