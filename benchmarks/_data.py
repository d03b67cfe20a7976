"""Shipped data for the benchmark scripts (through mil.datasets, the one loader)."""

from mil.datasets import load_dataset


def load(name):
    """``(bags, y, folds)`` of a shipped set: Bags, int labels, the published fold row 0."""
    d = load_dataset(name, as_bags=True)
    return d.bags, d.target, d.folds[0]


def load_musk2():
    """Musk2 as ``(instances, bag_of_each_instance, bag_labels)``."""
    d = load_dataset("musk2", as_bags=True)
    return d.bags.instances, d.bags.instance_bag, d.target


def parse_params(items):
    """Command-line KEY=VALUE pairs as keyword arguments (ints, floats, True/False/None)."""
    params = {}
    for item in items or []:
        key, value = item.split("=", 1)
        for cast in (int, float):
            try:
                value = cast(value)
                break
            except ValueError:
                pass
        else:
            value = {"True": True, "False": False, "None": None}.get(value, value)
        params[key] = value
    return params
