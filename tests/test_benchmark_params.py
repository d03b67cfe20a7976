"""benchmarks/_data.parse_params: the --param KEY=VALUE parser of the benchmark scripts."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "_bench_data", Path(__file__).resolve().parents[1] / "benchmarks" / "_data.py")
_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_data)


def test_scalars_and_lists():
    params = _data.parse_params(["C=10", "gamma=0.5", "scale=None", "fast=True", "kernel=emd",
                                 "p=[0.5,1, 2]", "names=[a,None]", "empty=[]", "url=a=b"])
    assert params == {"C": 10, "gamma": 0.5, "scale": None, "fast": True, "kernel": "emd",
                      "p": [0.5, 1, 2], "names": ["a", None], "empty": [], "url": "a=b"}
    assert type(params["C"]) is int and type(params["p"][0]) is float
    assert _data.parse_params(None) == {}


@pytest.mark.parametrize("item", ["C", "=1"])
def test_malformed_item(item):
    with pytest.raises(ValueError, match="KEY=VALUE"):
        _data.parse_params([item])
