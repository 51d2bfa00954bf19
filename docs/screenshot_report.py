"""Screenshots of a survey report's plots as headless Chromium shows them.

    python docs/screenshot_report.py REPORT.html OUT_DIR [--prefix NAME]

Each figure of the page (an ``<h2 id=...>`` and its ``<figure>``) is cut out
into a page of its own, with the report's style, and photographed by
``chromium --headless --screenshot`` at a window that fits it:
``OUT_DIR/PREFIX-<plot>.png``. Needs Debian's chromium (/usr/bin/chromium).
"""

import argparse
import pathlib
import re
import subprocess
import tempfile

CHROMIUM = "/usr/bin/chromium"
WIDTH = 1100  # the window, in CSS pixels; the page's body is 70em wide at most
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1")


def sections(page: str):
    """(plot name, its HTML: heading, figure and caption) in page order."""
    style = re.search(r"<style>.*?</style>", page, re.S).group(0)
    for m in re.finditer(r'<h2 id="([\w-]+)">.*?</figure>', page, re.S):
        yield m.group(1), f"<!doctype html><html><head><meta charset='utf-8'>{style}</head><body>{m.group(0)}</body></html>"


def height_of(section: str) -> int:
    """The window height that shows the whole figure: the SVG's size in
    points, scaled as the page scales it to fit, plus heading and caption."""
    m = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"[^>]*\bheight="([\d.]+)pt"', section)
    width, height = (float(v) * 96 / 72 for v in m.groups())
    scale = min(1.0, (WIDTH - 60) / width)
    return int(height * scale) + 220


def shoot(report: pathlib.Path, out: pathlib.Path, prefix: str) -> list:
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    with tempfile.TemporaryDirectory() as work:
        for name, section in sections(report.read_text(encoding="utf-8")):
            html = pathlib.Path(work) / f"{name}.html"
            html.write_text(section, encoding="utf-8")
            png = out / f"{prefix}-{name}.png"
            subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={work}/profile",
                            f"--window-size={WIDTH},{height_of(section)}", f"--screenshot={png}",
                            html.as_uri()], check=True, capture_output=True, timeout=120)
            shots.append(png)
    return shots


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--prefix", default="report")
    args = parser.parse_args()
    for png in shoot(args.report, args.out, args.prefix):
        print(png)


if __name__ == "__main__":
    main()
