"""npm installs of a sweep's next release over a copy of an earlier one's.

A version sweep installs successive releases of one package, whose trees
mostly repeat. npm, given a copy of the last release's ``node_modules``
and asked for the next release (``npm install --before CUT-OFF``), keeps
every package there that still satisfies the new release's ranges and
fetches, unpacks and builds only the rest: 2-4 s where a plain install
takes 5-9 s. The tree it leaves is one a user upgrading in place gets, not
always the fresh one (a dependency the earlier release pinned lower stays
lower while the new range allows it), so what the survey takes from it is
checked: the crawl captures a sample of these releases from a plain
install too (``runner._check_reuse``), and a difference turns the reuse off
for the rest of the run.

A seed is only an install of an earlier release (by publish time), made
as of its own release (no later cut-off), on the same Node.js: every
package in it was published before this release's cut-off, so the
``--before`` date still holds for the whole tree.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from mcpdelta.files import write_file

from .errors import CrawlError
from .servers import safe_name
from .toolchain import run_process

SEED = ".seed"  # the last install ``release`` removed, kept for the package's next release


def find_seed(package_dir: Path, published_at: str | None, folder_of) -> tuple[Path, dict] | None:
    """The install of this package's latest release published before
    ``published_at`` that may seed it, with its install.json; None if none.
    ``folder_of(version, published_at)``: the folder name an install of that
    release with this one's options has (registry, Node.js, cut-offs): a
    seed made otherwise is passed over."""
    if not _when(published_at) or not package_dir.is_dir():
        return None
    best = None
    for marker in [*package_dir.glob("*~*/install.json"), package_dir / SEED / "install.json"]:
        try:
            info = json.loads(marker.read_text())
            name = (marker.parent / ORIGIN).read_text().strip() if marker.parent.name == SEED else marker.parent.name
        except (OSError, ValueError):
            continue
        when = _when(info.get("published_at")) if isinstance(info, dict) else None
        if (when is None or when >= _when(published_at) or info.get("retry") or not isinstance(info.get("version"), str)
                or name != folder_of(info["version"], info["published_at"])
                or not (marker.parent / "node_modules").is_dir()):
            continue
        if best is None or when > _when(best[1]["published_at"]):
            best = (marker.parent, info)
    return best


ORIGIN = ".origin"  # in the seed: the name of the install folder it was


def _when(stamp) -> dt.datetime | None:
    if not isinstance(stamp, str):
        return None
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


async def copy_seed(seed: Path, work: Path, timeout: float) -> None:
    """The seed's ``node_modules`` copied whole into the work folder (``cp -a``:
    no file shared with the seed, which stays a finished install, where npm
    rewrites its hidden lockfile in place). The times kept, npm's hidden
    lockfile still describes the copy and spares npm reading the tree
    (firecrawl-mcp 3.26.0 over 3.25.1: 1.3-1.6 s against 2.0-2.4 s, the same tree)."""
    code, _, err = await run_process(["cp", "-a", "--", str(seed / "node_modules"), str(work / "node_modules")],
                                     timeout)
    if code != 0:  # the seed removed meanwhile, a full disk: the caller installs plainly
        raise CrawlError("install_failed", f"copying the install of an earlier release: {err.strip()[-300:]}")


def keep_as_seed(folder: Path) -> bool:
    """``release``: keep a removed install as the package's seed when it is
    of a later release than the seed there (one per package); False when
    it was not kept."""
    try:
        info = json.loads((folder / "install.json").read_text())
    except (OSError, ValueError):
        return False
    when = _when(info.get("published_at")) if isinstance(info, dict) else None
    if info.get("registry") != "npm" or when is None or info.get("retry"):
        return False
    seed = folder.parent / SEED
    try:
        held = _when(json.loads((seed / "install.json").read_text()).get("published_at"))
    except (OSError, ValueError, AttributeError):
        held = None
    if held and held >= when:
        return False
    aside = folder.parent / f".{SEED}-{os.getpid()}-old"
    try:
        (folder / ORIGIN).write_text(folder.name + "\n")
        if seed.exists():
            os.replace(seed, aside)
        os.replace(folder, seed)
    except OSError:
        return False
    finally:
        shutil.rmtree(aside, ignore_errors=True)
    return True


async def check_install(cache, registry, name, version, published_at, bin_name, node=None) -> dict:
    """A plain install (no earlier release's copy) of an npm release into a
    folder of its own, for the crawl's check of a reused one: its info, with
    "folder" (the caller removes it, or ``adopt``s it)."""
    base = cache.dir(registry, name)
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".check-{safe_name(version)}-", dir=base))
    try:
        info = await cache._install_dated(work, registry, name, version, published_at, bin_name, node)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    info.pop("warning", None)
    info.update({"registry": registry, "name": name, "version": version, "published_at": published_at})
    write_file(work / "install.json", json.dumps(info, indent=1, sort_keys=True))
    absolute = [str(work / part) for part in info["argv"]]
    return await cache._with_runtime(info | {"argv": absolute, "folder": str(work)})


def adopt(folder: str, final: Path) -> None:
    """A checked plain install in place of the reused one whose capture differed."""
    aside = final.with_name(f".{final.name}.differs-{os.getpid()}")
    os.replace(final, aside)
    os.replace(folder, final)
    shutil.rmtree(aside, ignore_errors=True)


class Turns:
    """A package's releases taking their installs one at a time, the earliest
    published first among those waiting (each then finds the one before it
    installed; a registry's version order is not always its publish order).
    A release takes a ``turn`` once it may start (it holds its in-flight
    slot: the earliest waiting can always go on) and is ``done`` with it
    whatever happens."""

    def __init__(self):
        self._waiting: list[tuple] = []
        self._busy = False
        self._cond: asyncio.Condition | None = None
        self._count = 0

    def turn(self, published_at: str | None) -> "_Turn":
        self._count += 1
        key = (_when(published_at) or dt.datetime.min.replace(tzinfo=dt.timezone.utc), self._count)
        self._waiting.append(key)
        return _Turn(self, key)


class _Turn:
    def __init__(self, turns: Turns, key: tuple):
        self.turns, self.key, self.entered = turns, key, False

    async def __aenter__(self):
        # one step for the releases started with this one (a crawl starts its
        # jobs together) to take their turns too: the earliest published goes first
        await asyncio.sleep(0)
        turns = self.turns
        turns._cond = turns._cond or asyncio.Condition()
        async with turns._cond:
            await turns._cond.wait_for(lambda: not turns._busy and min(turns._waiting) == self.key)
            turns._busy = self.entered = True
        return self

    async def __aexit__(self, *exc) -> None:
        await self._leave()

    async def _leave(self) -> None:
        turns = self.turns
        turns._cond = turns._cond or asyncio.Condition()
        async with turns._cond:
            if self.key in turns._waiting:
                turns._waiting.remove(self.key)
                if self.entered:
                    turns._busy = False
                turns._cond.notify_all()

    async def done(self) -> None:
        """Out of the queue, entered or not (a release that never installs)."""
        await self._leave()


def sampled(name: str, version: str, every: int) -> bool:
    """The deterministic 1-in-``every`` of releases whose reuse is checked (0: none)."""
    if every <= 0:
        return False
    digest = hashlib.sha256(f"{name}@{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % every == 0


def same_capture(a: dict | None, b: dict | None) -> str | None:
    """None when two manifests are equal, else what differs (first few names)."""
    if a == b:
        return None
    a, b = a or {}, b or {}
    keys = sorted(k for k in set(a) | set(b) if k != "tools" and a.get(k) != b.get(k))
    tools = lambda m: {t.get("name"): t for t in m.get("tools") or [] if isinstance(t, dict)}  # noqa: E731
    ta, tb = tools(a), tools(b)
    names = sorted(str(n) for n in set(ta) ^ set(tb))
    changed = sorted(str(n) for n in set(ta) & set(tb) if ta[n] != tb[n])
    parts = ([f"fields {', '.join(keys)}"] if keys else []) + (
        [f"tools on one side only: {', '.join(names[:5])}"] if names else []) + (
        [f"tools that differ: {', '.join(changed[:5])}"] if changed else [])
    return "; ".join(parts) or "the order of the tools"
