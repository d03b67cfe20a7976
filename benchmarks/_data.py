"""Shared helpers of the benchmark scripts: the shipped data, log loss, --param parsing, CPU timing, peak memory."""

import threading
import time

import numpy as np

from mil.datasets import load_dataset

EPS = 1e-15


def log_loss(y, p):
    """Binary log loss of P(1) = `p` for 0/1 (or boolean) labels `y`, `p` clipped to [1e-15, 1 - 1e-15]."""
    p = np.clip(p, EPS, 1 - EPS)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def load(name):
    """``(bags, y, folds)`` of a shipped set: Bags, int labels, the published fold row 0."""
    d = load_dataset(name, as_bags=True)
    return d.bags, d.target, d.folds[0]


def load_musk2():
    """Musk2 as ``(instances, bag_of_each_instance, bag_labels)``."""
    d = load_dataset("musk2", as_bags=True)
    return d.bags.instances, d.bags.instance_bag, d.target


def _parse_value(value):
    """One command-line value: int, float, True/False/None, else the string."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"True": True, "False": False, "None": None}.get(value, value)


def parse_params(items):
    """Command-line KEY=VALUE pairs as keyword arguments.

    Values are ints, floats, True/False/None or strings; ``[a,b,...]`` or a
    bare comma-separated ``a,b,...`` is a list of such values (``p=[0.5,1,2]``,
    ``gamma=0.25,1,4``; ``[]`` the empty list).
    """
    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        if value.startswith("[") and value.endswith("]"):
            inner = value[1:-1].strip()
            params[key] = [_parse_value(v.strip()) for v in inner.split(",")] if inner else []
        elif "," in value:
            params[key] = [_parse_value(v.strip()) for v in value.split(",")]
        else:
            params[key] = _parse_value(value)
    return params


def published_fold(name, rep, fold):
    """``(X_train, y_train, X_test, y_test)`` of fold `fold` of published repetition `rep`."""
    import numpy as np

    d = load_dataset(name)
    y = np.asarray(d.target)
    test = np.asarray(d.folds[rep]) == fold
    bags = lambda mask: [d.data[i] for i in np.flatnonzero(mask)]  # noqa: E731
    return bags(~test), y[~test], bags(test), y[test]


def prior_log_loss(y_train, y_test, classes):
    """Log loss on `y_test` of predicting the training class frequencies (the constant prior)."""
    import numpy as np
    from sklearn.metrics import log_loss

    prior = np.mean(np.asarray(y_train)[:, None] == classes[None, :], axis=0)
    return log_loss(y_test, np.tile(prior, (len(y_test), 1)), labels=classes)


def cpu_time(func, repeat):
    """The smallest CPU time (this process's, seconds) of `repeat` calls of `func`."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        func()
        best = min(best, time.process_time() - t0)
    return best


class AnonymousPeak(threading.Thread):
    """Samples the process's anonymous resident memory (Linux RssAnon), keeps the peak.

    Pages of the memmapped files count in the resident set while they sit in
    the page cache, so ru_maxrss would report the files, not what the
    process allocates; RssAnon leaves them out.
    """

    def __init__(self, interval=0.02):
        super().__init__(daemon=True)
        self.interval, self.peak_mb, self._done = interval, 0.0, threading.Event()

    @staticmethod
    def now_mb():
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def run(self):
        while not self._done.is_set():
            self.peak_mb = max(self.peak_mb, self.now_mb())
            time.sleep(self.interval)

    def stop(self):
        self._done.set()
        self.join()
        return self.peak_mb
