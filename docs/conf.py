"""Sphinx configuration of the scikit-mil documentation.

Build (from the repository root, with the package installed and the ``docs``
extra: ``pip install ".[docs]"``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The API reference is generated at every build from the ``__all__`` of each
public module of ``mil`` (see :func:`write_api_pages`), so a new public module
or name appears without editing any list here. No network access is needed:
intersphinx is not used.
"""

import importlib
import inspect
import os
import pkgutil
import re
import sys
import warnings
from pathlib import Path

import mil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))  # mathsvg: formulas drawn at build time

project = "scikit-mil"
author = "The mil developers"
copyright = "2026, The mil developers"
version = release = mil.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "mathsvg",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
root_doc = "index"
default_role = "literal"

# -- API reference --------------------------------------------------------------

autosummary_generate = True
# Every public method and attribute of a class, its base classes' included
# (fit, predict, predict_proba often come from a private base class): the
# class template (_templates/class.rst) documents them with
# :inherited-members: and adds a summary table of them.
# (No "inherited-members" key here: a default of False would override the
# template's flag; module pages must not list inherited members.)
autodoc_default_options = {"members": True}
autosummary_inherited_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# Cross-references inside docstrings' parameter types are not checked: most
# name NumPy/scikit-learn types, and intersphinx is off (no network in CI).
numpydoc_xref_param_type = False

#: Modules never documented even if they define __all__ (their pages would
#: only repeat the command line page).
SKIP_MODULES = {"mil.__main__"}


def public_modules():
    """Public modules of ``mil`` that define ``__all__``, sorted.

    A module is public when no component of its dotted name starts with an
    underscore. Importing must not fail: a broken public module should break
    the docs build, not vanish from it.
    """
    names = ["mil"]
    for info in pkgutil.walk_packages(mil.__path__, prefix="mil."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    modules = []
    for name in sorted(set(names) - SKIP_MODULES):
        module = importlib.import_module(name)
        if getattr(module, "__all__", None):
            modules.append(module)
    return modules


def _home(obj, listing, modules):
    """The public module whose page documents ``obj``.

    The public module with the longest name that lists the object in its
    ``__all__`` and contains the module that defines it (so
    ``mil.BagKNNClassifier`` is documented once, under ``mil.neighbors``).
    Objects without ``__module__`` (constants) stay where they are listed.
    """
    defined_in = getattr(obj, "__module__", None)
    if not isinstance(defined_in, str) or not (inspect.isclass(obj) or inspect.isroutine(obj)):
        return listing
    best = listing
    for module in modules:
        name = module.__name__
        if (defined_in == name or defined_in.startswith(name + ".")) and len(name) > len(best):
            if any(getattr(module, n, None) is obj for n in module.__all__):
                best = name
    return best


def write_api_pages():
    """Write ``api/<module>.rst`` for every public module, and ``api/index.rst``."""
    modules = public_modules()
    out = HERE / "api"
    out.mkdir(exist_ok=True)
    for stale in out.glob("*.rst"):
        stale.unlink()
    entries, summaries = [], []
    for module in modules:
        name = module.__name__
        own, elsewhere = [], []
        for attr in module.__all__:
            if attr.startswith("__"):
                continue
            obj = getattr(module, attr)
            home = _home(obj, name, modules)
            (own if home == name else elsewhere).append((attr, obj, home))
        title = f"``{name}``"
        lines = [title, "=" * len(title), "", f".. automodule:: {name}", "   :no-members:", "",
                 f".. currentmodule:: {name}", ""]
        classes = [a for a, o, _ in own if inspect.isclass(o)]
        functions = [a for a, o, _ in own if inspect.isroutine(o)]
        data = [a for a, o, _ in own if not (inspect.isclass(o) or inspect.isroutine(o))]
        for heading, names, template in (("Classes", classes, "class.rst"),
                                         ("Functions", functions, "function.rst")):
            if names:
                lines += [heading, "-" * len(heading), "", ".. autosummary::",
                          "   :toctree: generated/", "   :nosignatures:",
                          f"   :template: {template}", ""]
                lines += [f"   {n}" for n in sorted(names, key=str.lower)] + [""]
        if data:
            lines += ["Constants", "---------", ""]
            for n in data:
                lines += [f".. autodata:: {n}", "   :no-value:", ""]
        if elsewhere:
            lines += ["Re-exported here", "----------------", "",
                      "Documented under the module that defines them:", ""]
            for attr, obj, home in elsewhere:
                role = "class" if inspect.isclass(obj) else "func"
                lines.append(f"- :{role}:`{name}.{attr} <{home}.{attr}>`")
            lines.append("")
        (out / f"{name}.rst").write_text("\n".join(lines))
        entries.append(name)
        summaries.append((module, classes + functions))
    index = ["API reference", "=============", "",
             "Generated from the docstrings of every public module (its ``__all__``).",
             "Classes and functions re-exported by :mod:`mil` are documented under the",
             "module that defines them. Each class page lists every public method and",
             "attribute, those inherited from its base classes included.", "",
             ".. toctree::", "   :hidden:", ""]
    index += [f"   {name}" for name in entries] + [""]
    for module, names in summaries:
        name = module.__name__
        doc = inspect.getdoc(module) or ""
        first = doc.strip().split("\n\n")[0].replace("\n", " ") if doc.strip() else ""
        heading = f":doc:`{name}`"
        index += [heading, "-" * len(heading), "", first, ""]
        if names:
            index += [f".. currentmodule:: {name}", "", ".. autosummary::", "   :nosignatures:", ""]
            index += [f"   {n}" for n in sorted(names, key=str.lower)] + [""]
    (out / "index.rst").write_text("\n".join(index) + "\n")


write_api_pages()


def write_cli_help():
    """``_generated/cli_help.txt``: ``--help`` of ``mil`` and every subcommand.

    Generated from the parser itself (``mil.cli.build_parser``), so the page
    on the command line follows its options without editing.
    """
    import argparse

    from mil.cli import build_parser

    os.environ["COLUMNS"] = "88"
    out = HERE / "_generated"
    out.mkdir(exist_ok=True)
    texts = []

    def walk(parser, command):
        texts.append(f"$ {command} --help\n{parser.format_help().rstrip()}\n")
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{command} {name}")

    walk(build_parser(), "mil")
    (out / "cli_help.txt").write_text("\n".join(texts))


write_cli_help()

# -- Examples gallery -----------------------------------------------------------

os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
}

def skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


_REF = re.compile(r":(?:ref|term):`([^`<]*?)\s*(?:<[^`>]*>)?`")


def plain_foreign_refs(app, what, name, obj, options, lines):
    """Cross-references into scikit-learn's own docs (inherited docstrings) as plain text.

    ``score`` and ``get_metadata_routing`` come from scikit-learn, whose
    docstrings point to labels of its user guide; without intersphinx (no
    network in CI) those would be undefined-label warnings.
    """
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] != "sklearn":
        return
    lines[:] = [_REF.sub(lambda m: m.group(1).strip() or "the scikit-learn user guide", line) for line in lines]


def setup(app):
    app.connect("autodoc-skip-member", skip_member)
    app.connect("autodoc-process-docstring", plain_foreign_refs)


# -- HTML -----------------------------------------------------------------------

# Formulas are SVG images made at build time (docs/_ext/mathsvg.py): the pages
# need no network and no JavaScript to show them.
html_math_renderer = "mathsvg"

html_theme = "pydata_sphinx_theme"
html_title = f"scikit-mil {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "icon_links": [],
}
