"""Check the built HTML documentation as a reader would see it.

    python .ci/check_docs.py HTML_DIR

- Every public estimator (a class with ``fit`` in the ``__all__`` of a public
  module of ``mil``) has an API page that documents ``fit``, ``predict``,
  ``predict_proba`` (where the class has them) and every other public
  method, those inherited from base classes included, with a summary table
  of the methods.
- The API index has a summary table per module.
- No raw TeX is left in the text of the user guide, the results and the API
  pages: no ``\\(``, ``\\[`` or ``$$`` outside ``<script>``/``<style>``
  (formulas are drawn at build time, see docs/_ext/mathsvg.py), and no page
  loads MathJax.

Exits non-zero with one line per problem. Needs ``mil`` importable (the
package whose docs were built); standard library otherwise.
"""

import importlib
import inspect
import pkgutil
import sys
from html.parser import HTMLParser
from pathlib import Path


class _Page(HTMLParser):
    """Visible text, element ids and classes of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.ids, self.classes, self.scripts = [], set(), set(), []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self._hidden += 1
            if tag == "script" and attrs.get("src"):
                self.scripts.append(attrs["src"])
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        self.classes.update((attrs.get("class") or "").split())

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)


def read(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def public_estimators():
    """``(page name, class)`` of every public class with ``fit``, once each (its defining module's page)."""
    import mil

    names = ["mil"] + [i.name for i in pkgutil.walk_packages(mil.__path__, prefix="mil.")
                       if not any(part.startswith("_") for part in i.name.split("."))]
    seen = {}
    for name in sorted(set(names) - {"mil.__main__"}):
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)):
                # The page is the longest public module path containing the defining module.
                home = obj.__module__
                if home.startswith(name) and len(name) >= len(seen.get(obj, ("",))[0]):
                    seen[obj] = (name, attr)
    return [(f"{name}.{attr}", obj) for obj, (name, attr) in seen.items()]


def expected_methods(cls):
    out = []
    for name in dir(cls):
        if name.startswith("_") or (name.startswith("set_") and name.endswith("_request")):
            continue
        try:
            member = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        if inspect.isfunction(member) or isinstance(member, (classmethod, staticmethod)):
            out.append(name)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__)
        return 2
    root = Path(argv[0])
    problems = []
    estimators = public_estimators()
    if not estimators:
        problems.append("no public estimator found")
    for qualname, cls in estimators:
        path = root / "api" / "generated" / f"{qualname}.html"
        if not path.exists():
            problems.append(f"{qualname}: no API page ({path.relative_to(root)})")
            continue
        page = read(path)
        wanted = expected_methods(cls)
        for core in ("fit", "predict", "predict_proba"):
            if hasattr(cls, core) and core not in wanted:
                wanted.append(core)  # e.g. available_if: listed all the same
        missing = [m for m in wanted if f"{qualname}.{m}" not in page.ids]
        if missing:
            problems.append(f"{qualname}: the page does not document {', '.join(missing)}")
        if "Methods" not in " ".join(page.text) or "autosummary" not in page.classes:
            problems.append(f"{qualname}: no summary table of the methods")
    index = root / "api" / "index.html"
    if not index.exists() or "autosummary" not in read(index).classes:
        problems.append("api/index.html: no summary table of the modules' classes and functions")
    pages = [p for d in ("user_guide", "results", "api") for p in sorted((root / d).rglob("*.html"))]
    pages += [root / "index.html", root / "quickstart.html"]
    math_pages = 0
    for path in pages:
        if not path.exists():
            continue
        page = read(path)
        text = "".join(page.text)
        for raw in ("\\(", "\\[", "$$"):
            if raw in text:
                at = text.index(raw)
                problems.append(f"{path.relative_to(root)}: raw TeX {text[max(at - 20, 0):at + 40]!r}")
                break
        if any("mathjax" in src.lower() for src in page.scripts):
            problems.append(f"{path.relative_to(root)}: loads MathJax (math must be drawn at build time)")
        math_pages += "math" in page.classes
    if math_pages == 0:
        problems.append("no page holds a rendered formula (class 'math'): is the math renderer on?")
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"{'FAIL' if problems else 'ok  '} {len(estimators)} estimator pages, {len(pages)} pages checked "
          f"for raw TeX, {math_pages} with formulas")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
