"""The README is a front page: short, and it names every public class."""

import inspect
from pathlib import Path

import pytest

import mil

README = Path(__file__).resolve().parents[1] / "README.md"

pytestmark = pytest.mark.skipif(not README.exists(), reason="README.md is not beside the tests (installed package)")


def _front_page():
    text = README.read_text(encoding="utf-8")
    return text[: text.index("## Development")]


def test_front_page_is_short():
    assert _front_page().count("\n") <= 120


@pytest.mark.parametrize("name", [n for n in mil.__all__ if inspect.isclass(getattr(mil, n))])
def test_front_page_names_every_public_class(name):
    assert f"`{name}`" in _front_page()
