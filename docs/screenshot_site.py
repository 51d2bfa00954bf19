"""The site `mcpdelta site` writes, as headless Chromium shows it.

    python docs/screenshot_site.py SITE_DIR OUT_DIR [--server ID] [--rule RULE]

Opens the index, one server's page and one rule's page from ``file://``
in Debian's chromium (/usr/bin/chromium) through the DevTools protocol,
fails on any console error or uncaught exception, sorts the index by
"Proven breaks" and filters it with the keyboard alone (Tab to the
control, Enter, typing), and writes OUT_DIR/site-index.png,
site-server.png, site-server-from-to.png and site-rule.png. ``tests/site/test_browser.py`` runs it.
"""

import argparse
import asyncio
import base64
import itertools
import json
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
         "--force-device-scale-factor=1")
WIDTH, HEIGHT = 1200, 1100


class Page:
    """One tab over the DevTools protocol: commands, and the errors it logged."""

    def __init__(self, socket_):
        self.socket, self.ids, self.errors, self.pending = socket_, itertools.count(1), [], {}
        self.loaded = asyncio.Event()

    async def listen(self):
        async for raw in self.socket:
            message = json.loads(raw)
            method = message.get("method")
            if "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)
            elif method == "Runtime.consoleAPICalled" and message["params"]["type"] in ("error", "assert"):
                self.errors.append(json.dumps(message["params"]["args"])[:300])
            elif method == "Runtime.exceptionThrown":
                self.errors.append(message["params"]["exceptionDetails"].get("text", "exception"))
            elif method == "Log.entryAdded" and message["params"]["entry"]["level"] == "error":
                self.errors.append(message["params"]["entry"].get("text", "")[:300])
            elif method == "Page.loadEventFired":
                self.loaded.set()

    async def send(self, method, **params):
        number = next(self.ids)
        self.pending[number] = asyncio.get_running_loop().create_future()
        await self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        answer = await asyncio.wait_for(self.pending[number], 30)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def evaluate(self, expression):
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def open(self, url):
        self.loaded.clear()
        await self.send("Page.navigate", url=url)
        await asyncio.wait_for(self.loaded.wait(), 30)

    async def key(self, key, code, keycode, text=None):
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": keycode}
            if text and kind == "keyDown":
                params["text"] = text
            await self.send("Input.dispatchKeyEvent", **params)

    async def tab_to(self, expression, limit=60):
        """Press Tab until the element ``expression`` finds has the focus."""
        for _ in range(limit):
            if await self.evaluate(f"document.activeElement === ({expression})"):
                return
            await self.key("Tab", "Tab", 9)
        raise AssertionError(f"Tab never reached {expression}")

    async def shoot(self, path):
        data = await self.send("Page.captureScreenshot", format="png")
        pathlib.Path(path).write_bytes(base64.b64decode(data["data"]))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _drive(ws_url, site, out, server, rule) -> dict:
    import websockets

    async with websockets.connect(ws_url, max_size=64 * 1024 * 1024) as ws:
        page = Page(ws)
        listener = asyncio.create_task(page.listen())
        for domain in ("Page", "Runtime", "Log"):
            await page.send(f"{domain}.enable")
        await page.send("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT,
                        deviceScaleFactor=1, mobile=False)
        facts = {}
        await page.open((site / "index.html").resolve().as_uri())
        rows = "document.querySelectorAll('#servers tbody tr')"
        facts["servers"] = await page.evaluate(f"{rows}.length")
        # sort by proven breaks with the keyboard: Tab to its header's button, Enter
        button = "document.querySelectorAll('#servers thead th button')[5]"
        await page.tab_to(button)
        await page.key("Enter", "Enter", 13, "\r")
        facts["sorted"] = await page.evaluate(
            "document.querySelectorAll('#servers thead th')[5].getAttribute('aria-sort')")
        facts["proven"] = await page.evaluate(
            f"Array.from({rows}).map(r => Number(r.cells[5].dataset.sort))")
        await page.shoot(out / "site-index.png")
        # filter on a fresh page: Tab to the box, type
        await page.open((site / "index.html").resolve().as_uri())
        await page.tab_to("document.getElementById('filter')")
        await page.send("Input.insertText", text=server)
        facts["filtered"] = await page.evaluate(f"Array.from({rows}).filter(r => !r.hidden).length")
        facts["shown"] = await page.evaluate("document.getElementById('shown').textContent")
        # the server's own page by following its link with Enter
        link = f"Array.from({rows}).find(r => !r.hidden).querySelector('a')"
        await page.tab_to(link)
        page.loaded.clear()
        await page.key("Enter", "Enter", 13, "\r")
        await asyncio.wait_for(page.loaded.wait(), 30)
        facts["server_title"] = await page.evaluate("document.querySelector('h1').textContent")
        await page.shoot(out / "site-server.png")
        await page.evaluate("document.getElementById('from-to').scrollIntoView()")
        await page.shoot(out / "site-server-from-to.png")
        from mcpdelta.site import slug

        await page.open((site / "rules" / f"{slug(rule)}.html").resolve().as_uri())
        facts["rule_title"] = await page.evaluate("document.querySelector('h1').textContent")
        await page.shoot(out / "site-rule.png")
        await asyncio.sleep(0.2)  # a late console message still counts
        facts["errors"] = list(page.errors)
        listener.cancel()
        return facts


def shoot(site, out, server, rule) -> dict:
    """Open the site in headless Chromium; return what was seen (the
    errors logged included) and write the three screenshots."""
    site, out = pathlib.Path(site), pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    port = _port()
    with tempfile.TemporaryDirectory(prefix="mcpdelta-chromium-") as profile:
        browser = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}",
                                    f"--remote-debugging-port={port}", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                        tabs = [t for t in json.load(r) if t.get("type") == "page"]
                    if tabs:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("chromium's DevTools endpoint never answered")
                time.sleep(0.2)
            return asyncio.run(_drive(tabs[0]["webSocketDebuggerUrl"], site, out, server, rule))
        finally:
            browser.terminate()
            try:
                browser.wait(10)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--server", default="demo-notes")
    parser.add_argument("--rule", default="tool.input.constraint.tightened")
    args = parser.parse_args()
    facts = shoot(args.site, args.out, args.server, args.rule)
    facts["proven"] = facts["proven"][:10]  # the first rows tell the order
    print(json.dumps(facts, indent=1, default=str))
    return 1 if facts["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
