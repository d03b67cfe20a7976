"""The L2-regularised squared-hinge linear SVM, by a finite Newton method.

The problem is liblinear's primal L2-loss SVM (scikit-learn's
``LinearSVC(loss="squared_hinge", penalty="l2")`` with an intercept of
scaling 1, which is penalised like a weight):

    minimise over v = (w, b):  0.5 |v|^2 + C sum_i s_i max(0, 1 - y_i (w . x_i + b))^2

with y_i in {-1, +1} and sample weights s_i. Its objective is piecewise
quadratic and strictly convex, so it has one minimiser. The modified finite
Newton method of Keerthi and DeCoste (JMLR 2005) minimises the quadratic of
the current active set (the samples inside the margin) exactly, then takes
an exact line search along the step; it ends, in finitely many steps, when
a full step leaves the active set unchanged. With few features (its Newton
system is features x features) each step is one pass of BLAS over the active
samples, and a fit started from a nearby solution (mi-SVM's alternation
refits after a few labels change) ends in a few steps, where liblinear
starts from zero every time.
"""

import numpy as np

__all__ = ["MAX_NEWTON_FEATURES", "SquaredHingeSVM"]

#: Largest number of features for the Newton solver (its system is features x features).
MAX_NEWTON_FEATURES = 1024


class SquaredHingeSVM:
    """A fitted squared-hinge linear SVM: ``coef_``, ``intercept_``, ``n_iter_``.

    Parameters
    ----------
    C : float
        Weight of the squared hinge losses against 0.5 |v|^2.
    max_iter : int, default=100
        Largest number of Newton steps.
    """

    def __init__(self, C, max_iter=100):
        self.C = float(C)
        self.max_iter = int(max_iter)

    def fit(self, X, y, sample_weight=None, start=None):
        """Minimise the objective on `X` (n x d) and labels `y` (0 / 1, or -1 / +1).

        `start`: an earlier fit of the same features to start from (its
        ``coef_`` and ``intercept_``), else zero.
        """
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        sign = np.where(np.asarray(y) > 0, 1.0, -1.0)
        s = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        c2 = 2.0 * self.C
        if start is not None and start.coef_.shape == (d,):
            v = np.r_[start.coef_, start.intercept_]
        else:
            v = np.zeros(d + 1)
        out = sign * (X @ v[:d] + v[d])  # y_i times the decision value
        active = out < 1.0
        it = 0
        for it in range(1, self.max_iter + 1):
            Xa, sa, ya = X[active], s[active], sign[active]
            # The minimiser of the active set's quadratic: (I + 2C Xa~' S Xa~) v = 2C Xa~' S y.
            Xs = Xa * sa[:, None]
            H = np.empty((d + 1, d + 1))
            H[:d, :d] = Xa.T @ Xs
            H[:d, d] = H[d, :d] = Xs.sum(axis=0)
            H[d, d] = sa.sum()
            H *= c2
            H[np.diag_indices(d + 1)] += 1.0
            rhs = c2 * np.r_[Xs.T @ ya, (sa * ya).sum()]
            step = np.linalg.solve(H, rhs) - v
            if not step.any():  # already the minimiser
                break
            delta = sign * (X @ step[:d] + step[d])
            t = self._line_search(v, step, out, delta, s)
            v = v + t * step
            out = out + t * delta
            now = out < 1.0
            # A full step that keeps the active set lands on the minimiser (up to rounding).
            if (abs(t - 1.0) <= 1e-9 and np.array_equal(now, active)) or \
                    t * np.linalg.norm(step) <= 1e-12 * (1.0 + np.linalg.norm(v)):
                break
            active = now
        self.coef_, self.intercept_, self.n_iter_ = v[:d].copy(), float(v[d]), it
        return self

    def _line_search(self, v, step, out, delta, s):
        """The t >= 0 minimising the objective at ``v + t step`` (exact: its derivative is
        piecewise linear and increasing in t; its pieces end where a sample crosses the margin)."""
        c2 = 2.0 * self.C
        r = 1.0 - out  # a sample's loss is s * max(0, r - t delta)^2
        on = (r > 0) | ((r == 0) & (delta < 0))  # inside the margin just after t = 0
        # phi'(t) = a + b t on each piece, with the sums over the samples inside the margin.
        a = v @ step - c2 * np.sum(s[on] * delta[on] * r[on])
        b = step @ step + c2 * np.sum(s[on] * delta[on] ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = r / delta
        cross = (delta != 0) & (tau > 0)
        if not cross.any():
            return -a / b
        idx = np.flatnonzero(cross)
        idx = idx[np.argsort(tau[idx], kind="stable")]
        tau = tau[idx]
        enter = np.where(on[idx], -1.0, 1.0)  # a sample inside leaves at its crossing, one outside enters
        da = -enter * c2 * s[idx] * delta[idx] * r[idx]
        db = enter * c2 * s[idx] * delta[idx] ** 2
        A = a + np.r_[0.0, np.cumsum(da)]
        B = b + np.r_[0.0, np.cumsum(db)]
        ends = np.r_[tau, np.inf]
        # The first piece whose derivative is >= 0 at its end holds the root.
        done = (A[:-1] + B[:-1] * tau) >= 0
        k = int(np.argmax(done)) if done.any() else tau.shape[0]
        lo = 0.0 if k == 0 else tau[k - 1]
        return float(np.clip(-A[k] / B[k], lo, ends[k]))

    def decision_function(self, X):
        """``X @ coef_ + intercept_``."""
        return np.asarray(X, dtype=np.float64) @ self.coef_ + self.intercept_
