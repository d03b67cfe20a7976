"""Docstring sections the ensemble estimators share (filled by :func:`mil.utils._docstrings.fill_doc`)."""

__all__ = ["regression_example"]


def regression_example(n_estimators):
    """The Examples section of an ensemble regressor of `n_estimators` trees.

    Returns a section for ``fill_doc``: a callable of the class, whose name
    the example imports and fits on bags of the rotated-Gaussian benchmark
    (:func:`mil.datasets.make_rotated_gaussian_bags`).
    """
    def example(cls):
        return f"""    Examples
    --------
    >>> from mil.datasets import make_rotated_gaussian_bags
    >>> from mil.ensemble import {cls.__name__}
    >>> data = make_rotated_gaussian_bags(60, bag_size=50, random_state=0)  # label: an entropy of the bag
    >>> reg = {cls.__name__}(n_estimators={n_estimators}, random_state=0).fit(data.bags, data.target)
    >>> reg.score(data.bags, data.target) > 0.8
    True
"""
    return example
