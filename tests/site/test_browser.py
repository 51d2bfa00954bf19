"""The demo site in headless Chromium (Debian's /usr/bin/chromium): no
console error, the index sorted and filtered with the keyboard alone, a
server page reached by Enter on its link, a rule page; the screenshots
are written (docs/screenshot_site.py, which writes docs/site/ the same way)."""

import shutil

import pytest

from docs import screenshot_site  # docs/ is a namespace package: the checkout's folder
from tests.site.conftest import HOSTILE_SERVER

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium (apt-get install chromium)")
@pytest.mark.parametrize("server", ["demo-notes", HOSTILE_SERVER])
def test_the_site_in_chromium(lake, tmp_path, server):
    facts = screenshot_site.shoot(lake / "all", tmp_path, server, "tool.input.constraint.tightened")
    assert facts["errors"] == []
    assert facts["servers"] == 3
    assert facts["sorted"] == "descending"
    assert facts["proven"] == sorted(facts["proven"], reverse=True) and facts["proven"][0] > 0
    assert facts["filtered"] == 1 and facts["shown"] == "1 of 3 servers"
    assert facts["server_title"] == server  # the hostile name is a heading's text, nothing ran
    assert facts["rule_title"] == "tool.input.constraint.tightened"
    for name in ("site-index", "site-server", "site-server-from-to", "site-rule"):
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
