"""The report: one self-contained HTML page built from result directories only.

`wirelab.report.html.write_report` builds the page; `wirelab.report.browser.check_page` opens it in
headless Chromium and reports console errors, unloaded images and videos, and takes screenshots.
"""

from wirelab.report.browser import check_page
from wirelab.report.html import write_report

__all__ = ["check_page", "write_report"]
