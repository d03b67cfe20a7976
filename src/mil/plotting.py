"""PNG line plots for the reproduction commands (matplotlib: the optional ``plot`` extra)."""

__all__ = ["plotting_available", "save_line_plot"]


def plotting_available():
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def save_line_plot(path, panels, *, suptitle=None):
    """Write one figure of side-by-side line panels to a PNG file.

    Parameters
    ----------
    path : str or path-like
    panels : list of dict
        Each with ``title``, ``xlabel``, ``ylabel`` and ``series``: a dict
        ``label -> (x, y)``; optional ``logx`` (bool) for a logarithmic x axis.
    suptitle : str, default=None

    Returns
    -------
    path : str
    """
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.0), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        for label, (x, y) in panel["series"].items():
            ax.plot(x, y, marker="o" if len(x) <= 20 else None, markersize=4, label=label)
        ax.set_title(panel["title"])
        ax.set_xlabel(panel["xlabel"])
        ax.set_ylabel(panel["ylabel"])
        if panel.get("logx"):
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
