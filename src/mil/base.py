"""Shared estimator machinery: fit/predict validation and label bookkeeping.

Every classifier in mil subclasses :class:`BaseBagClassifier`, so bag and
label validation, ``classes_``, ``n_features_in_`` and the mapping from an
internal 0/1 positive flag back to the user's labels live in one place.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from mil.utils.validation import check_bags, check_bags_y, positive_index

__all__ = ["BaseBagClassifier"]


class BaseBagClassifier(ClassifierMixin, BaseEstimator):
    """Base class of the bag classifiers (not for direct use).

    Subclasses set two class attributes:

    ``_binary_only`` (bool)
        Raise a clear error for more than two classes (boosting). Learners
        that handle more classes but also declare ``positive_class`` (trees,
        forest: one concept per class) set it False; a given
        ``positive_class`` still requires exactly two classes.
    ``_allow_nan`` (bool)
        Accept NaN features as missing values (trees).

    and may declare a ``positive_class`` hyper-parameter (binary learners).
    """

    _binary_only = True
    _allow_nan = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Inputs are sequences of 2-D bags, not one 2-D array.
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.input_tags.allow_nan = self._allow_nan
        tags.classifier_tags.multi_class = not self._binary_only
        return tags

    # -- validation -----------------------------------------------------------
    def _validate_fit(self, X, y):
        """Validate parameters, bags and labels; set ``classes_`` and ``n_features_in_``.

        Returns
        -------
        bags : Bags
        y_encoded : ndarray of intp
            Class index per bag; for binary learners 1 = positive class.
        """
        self._validate_params()
        bags, classes, y_enc = check_bags_y(
            X, y, binary=self._binary_only or getattr(self, "positive_class", None) is not None,
            positive_class=getattr(self, "positive_class", None),
            allow_nan=self._allow_nan, estimator=type(self).__name__)
        self.classes_ = classes
        self.n_features_in_ = bags.n_features
        return bags, y_enc

    def _validate_predict(self, X):
        """Check fitted state and validate bags against the fitted feature count."""
        check_is_fitted(self, "classes_")
        return check_bags(X, n_features=self.n_features_in_, allow_nan=self._allow_nan,
                          estimator=type(self).__name__)

    # -- binary label bookkeeping --------------------------------------------
    @property
    def _pos_index(self):
        return positive_index(self.classes_, getattr(self, "positive_class", None))

    def _labels_from_positive(self, is_positive):
        """Map a boolean 'bag is positive' array to labels from ``classes_``."""
        pos = self._pos_index
        return np.where(np.asarray(is_positive, dtype=bool), self.classes_[pos], self.classes_[1 - pos])

    def _proba_from_positive(self, p_positive):
        """Two-column ``predict_proba`` output (columns follow ``classes_``)."""
        p = np.asarray(p_positive, dtype=np.float64)
        proba = np.empty((p.shape[0], 2))
        proba[:, self._pos_index] = p
        proba[:, 1 - self._pos_index] = 1.0 - p
        return proba

    def predict(self, X):
        """Predict the label of each bag (most probable class).

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        y : ndarray of shape (n_bags,)
            Labels from ``classes_``.
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
