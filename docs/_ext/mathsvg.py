"""Math rendered when the documentation is built: SVG from matplotlib's mathtext.

MathJax from a CDN leaves ``\\(\\min_{a \\in A} ...\\)`` as raw text for a reader
without network access. This renderer draws each formula once, at build time,
with matplotlib's mathtext (a TeX subset; matplotlib is already in the docs
extra) and embeds it in the page as an SVG image whose ``alt`` text is the
TeX source: no JavaScript, no network, nothing to install besides
matplotlib. A formula mathtext cannot parse is a build warning (an error
under ``-W``), never raw TeX on the page.

Decision not taken: sphinx.ext.imgmath needs a LaTeX installation;
sphinxcontrib-katex pre-renders only with Node.js and otherwise loads KaTeX
from a CDN; a bundled MathJax still renders in the reader's browser (a
static check of the built pages could not tell rendered from raw).
"""

import base64
import html
import io
import re

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: TeX spellings mathtext does not know, and the ones it does.
_SPELLINGS = [(re.compile(r"\\le(?![a-zA-Z])"), r"\\leq"), (re.compile(r"\\ge(?![a-zA-Z])"), r"\\geq"),
              (re.compile(r"\\lvert|\\rvert"), "|"), (re.compile(r"\\operatorname\{(\w+)\}"), r"\\mathrm{\1}")]
_CACHE = {}


def _mathtext(latex):
    text = " ".join(latex.split())
    for pattern, repl in _SPELLINGS:
        text = pattern.sub(repl, text)
    return f"${text}$"


def render(latex, fontsize=12.0):
    """``(svg bytes, depth in pt)`` of one formula (cached per build)."""
    key = (latex, fontsize)
    if key not in _CACHE:
        import matplotlib
        from matplotlib.font_manager import FontProperties
        from matplotlib.mathtext import math_to_image

        buf = io.BytesIO()
        # Transparent: the formula sits on the page's (or a table row's) background.
        with matplotlib.rc_context({"savefig.transparent": True}):
            depth = math_to_image(_mathtext(latex), buf, prop=FontProperties(size=fontsize), dpi=72,
                                  format="svg")
        _CACHE[key] = (buf.getvalue(), float(depth))
    return _CACHE[key]


def _img(self, node, latex, css, fontsize):
    try:
        svg, depth = render(latex, fontsize)
    except Exception as exc:  # mathtext's parse errors are ValueError; anything else is a failure too
        logger.warning("cannot render math %r: %s", latex, str(exc).splitlines()[0] if str(exc) else exc,
                       location=node)
        return f'<code class="{css}">{html.escape(latex)}</code>'
    data = base64.b64encode(svg).decode("ascii")
    return (f'<img class="{css}" src="data:image/svg+xml;base64,{data}" alt="{html.escape(latex, quote=True)}" '
            f'style="vertical-align: -{depth:.1f}pt"/>')


def visit_math(self, node):
    self.body.append(_img(self, node, node.astext(), "math", 12.0))
    raise nodes.SkipNode


def visit_displaymath(self, node):
    # One image per equation (blank lines separate them, as in the math directive).
    parts = [p for p in re.split(r"\n\s*\n", node.astext()) if p.strip()]
    self.body.append(self.starttag(node, "div", CLASS="math"))
    for part in parts:
        self.body.append("<p>" + _img(self, node, part, "math display", 13.0) + "</p>")
    self.body.append("</div>\n")
    raise nodes.SkipNode


_DARK_CSS = "html[data-theme=dark] img.math { filter: invert(1) hue-rotate(180deg); }\n"


def _write_css(app, exc):
    # Black formulas on the dark theme's background: inverted there.
    if exc is None and app.builder.format == "html":
        import os

        static = os.path.join(app.outdir, "_static")
        os.makedirs(static, exist_ok=True)
        with open(os.path.join(static, "mathsvg.css"), "w") as fh:
            fh.write(_DARK_CSS)


def setup(app):
    app.add_html_math_renderer("mathsvg", (visit_math, None), (visit_displaymath, None))
    app.add_css_file("mathsvg.css")
    app.connect("build-finished", _write_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
