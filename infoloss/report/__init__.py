"""The utility report: one self-contained HTML page per comparison.

``render_html(report, safe=False, min_cell=5)`` turns a
:class:`infoloss.compare.Report` into one HTML page with inline SVG plots,
inline CSS and a few lines of inline script (no network access needed).  It
is called by ``Report.to_html`` and the ``--html`` option of the command line.
"""

from .render import render_html

__all__ = ["render_html"]
