"""docs/render_notebook.py: a notebook executed on a lake, written as one
offline HTML page (how docs/sample/rule_frequencies.html is made)."""

import subprocess
import sys

from tests.conftest import ROOT


def test_render_writes_one_offline_page_with_the_figures(fixture_lake, tmp_path):
    out = tmp_path / "rule_frequencies.html"
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "render_notebook.py"), "rule_frequencies",
                             "--lake", str(fixture_lake), "--out", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "<script" in page and 'src="http' not in page  # nothing fetched from a CDN
    assert page.count("data:image/png;base64") >= 2  # the notebook's figures, inline
    assert "tool.removed" in page and "tool.input.enum.narrowed" in page
