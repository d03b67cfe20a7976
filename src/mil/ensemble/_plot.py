"""Train and test error of a boosted model against the number of rounds."""

import numpy as np

__all__ = ["plot_staged_error", "staged_errors"]


def staged_errors(estimator, X, y):
    """Bag error rate of a fitted boosted model after each round.

    Parameters
    ----------
    estimator : fitted GDBTMIClassifier
    X : sequence of 2-D arrays or Bags
    y : array-like of shape (n_bags,)

    Returns
    -------
    errors : ndarray of shape (estimator.n_estimators_,)
    """
    y = np.asarray(y)
    return np.array([np.mean(pred != y) for pred in estimator.staged_predict(X)])


def plot_staged_error(estimator, X_train, y_train, X_test=None, y_test=None, ax=None, title=None):
    """Plot the train (and test) bag error of a fitted model against the number of rounds.

    Needs matplotlib (the optional ``plot`` extra), imported here only.

    Parameters
    ----------
    estimator : fitted GDBTMIClassifier
    X_train, y_train : bags and labels the model was trained on
    X_test, y_test : bags and labels, default=None
        Held-out bags; their curve is drawn when given.
    ax : matplotlib Axes, default=None
        Where to draw (a new figure when None).
    title : str, default=None

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> from mil.ensemble import GDBTMIClassifier, plot_staged_error
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> clf = GDBTMIClassifier(n_estimators=10).fit(X, y)
    >>> ax = plot_staged_error(clf, X, y)  # doctest: +SKIP
    >>> ax.figure.savefig("staged_error.png")  # doctest: +SKIP
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot_staged_error needs matplotlib: pip install 'scikit-mil[plot]'") from exc
    new_figure = ax is None
    if new_figure:
        _, ax = plt.subplots(figsize=(5, 3.5))
    rounds = np.arange(1, estimator.n_estimators_ + 1)
    ax.plot(rounds, staged_errors(estimator, X_train, y_train), label="train error")
    if X_test is not None:
        ax.plot(rounds, staged_errors(estimator, X_test, y_test), label="test error")
    ax.set_xlabel("boosting rounds")
    ax.set_ylabel("bag error rate")
    ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title)
    ax.legend()
    if new_figure:
        ax.figure.tight_layout()
    return ax
