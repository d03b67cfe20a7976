"""Shared docstring sections: one mechanism for the paragraphs several estimators repeat.

A docstring names a shared section on a line of its own, indented as the
section's text is, in square brackets::

    Parameters
    ----------
    C : float, default=1.0
    [inner-cv parameters]

and the class is decorated with :func:`fill_doc`, which replaces each such
line by the registered text, in the class's docstring and in those of the
methods it defines (a placeholder indented deeper, as in a method's
docstring, receives the text indented as deep). A section is a string, or a
callable taking the class and returning one (for text that names the class
or quotes one of its defaults); its text may name other sections in turn.
An unknown name, or a bracketed placeholder left over, is an error at
import time, so a typo cannot reach the rendered documentation.

Modules register their sections with :func:`register` at import, next to
the code the text describes.
"""

import inspect
import re

__all__ = ["register", "fill_doc", "defaults_of"]

#: name -> str or callable(cls) -> str
_SECTIONS = {}
_PLACEHOLDER = re.compile(r"^ {4}( *)\[([a-z0-9][a-z0-9 \-]*)\]\n", re.MULTILINE)


def register(name, text):
    """Register the section `name` (a string, or a callable of the class returning one).

    Registering a name twice with different text is an error: two modules
    would otherwise silently disagree about a shared paragraph.
    """
    if name in _SECTIONS and _SECTIONS[name] is not text:
        raise ValueError(f"docstring section {name!r} is registered twice")
    _SECTIONS[name] = text
    return text


def defaults_of(cls):
    """The defaults of ``cls.__init__``'s parameters, as a dict."""
    return {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


def fill_doc(cls=None, **local):
    """Class (or function) decorator: replace every ``    [name]`` line of the docstring.

    On a class, the docstrings of the functions the class itself defines
    are filled too.

    Parameters
    ----------
    cls : type or callable, optional
        The object whose ``__doc__`` is filled (``@fill_doc`` without
        arguments).
    **local
        Sections known to this object only, by name (underscores stand for
        spaces: ``examples=...`` fills ``[examples]``); they take precedence
        over the registered ones.

    Returns
    -------
    cls or decorator

    Raises
    ------
    KeyError
        A placeholder names no section.
    """
    def decorate(obj):
        sections = {**_SECTIONS, **{k.replace("_", " "): v for k, v in local.items()}}
        _fill(obj, obj, sections)
        if inspect.isclass(obj):
            for member in vars(obj).values():
                if inspect.isfunction(member):
                    _fill(member, obj, sections)
        return obj

    return decorate if cls is None else decorate(cls)


def _fill(target, owner, sections):
    """Replace the placeholders of ``target.__doc__`` (callable sections are given `owner`)."""
    doc = target.__doc__
    if not doc:
        return

    def fill(match):
        extra, name = match.group(1), match.group(2)
        if name not in sections:
            raise KeyError(f"{target.__qualname__}'s docstring names the unknown section [{name}]")
        text = sections[name]
        text = text(owner) if callable(text) else text
        text = text if text.endswith("\n") else text + "\n"
        text = _PLACEHOLDER.sub(fill, text)  # a section naming others
        if extra:
            text = "".join(extra + line if line.strip() else line for line in text.splitlines(True))
        return text

    target.__doc__ = _PLACEHOLDER.sub(fill, doc)


# The input and output of the prediction methods every bag estimator shares.
register("bags to score", """    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The bags to score.
""")
register("bags to classify", """    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The bags to classify.
""")
register("bags to predict", """    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The bags to predict.
""")
register("predicted probabilities", """    [bags to score]

    Returns
    -------
    proba : ndarray of shape (n_bags, n_classes)
        Columns follow ``classes_``.
""")
register("predicted labels", """    [bags to classify]

    Returns
    -------
    y : ndarray of shape (n_bags,)
        Labels from ``classes_``.
""")
register("predicted values", """    [bags to predict]

    Returns
    -------
    y : ndarray of shape (n_bags,)
        The predictions.
""")
register("classes attributes", """    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features of the training instances.
""")

# References several estimators cite.
register("chevaleyre2001", """    Y. Chevaleyre and J.-D. Zucker (2001). Solving multiple-instance and
    multiple-part learning problems with decision trees and rule sets.
    Application to the mutagenesis problem. *Advances in Artificial
    Intelligence (Canadian AI 2001)*, LNCS 2056, 204-214.
""")

# The input every bag estimator's ``fit`` takes first (its method docstring's ``[fit bags]``).
register("fit bags", """\
    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        Training bags.
""")
register("fitted bags", """\
    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        Bags with the features seen in ``fit``.
""")
