"""The second front: a hostile server, a hostile folder and a hostile string,
each in real processes (the ``mcpdelta`` console script, the servers of
``tests/hostile/servers/`` on stdio and 127.0.0.1).

``build(folder)`` prepares everything under ``folder`` and returns the
``Case`` list. Each case says how its process must end (``expected``: an
``error`` is exit 2 (3 for verify-lock) and one line on stderr, ``ok`` exit
0 or 1), which files outside its target must stay as they are
(``untouched``), which of its outputs are in which medium (each is checked
for raw control characters, and Markdown and HTML also for raw markup) and
what else it must show (``verify``: a list of problems, empty when right).

Every case runs in the default test run (``test_front_*.py``) but the
study (``slow``: it surveys twice and writes the page), which runs with
``-m slow`` and in ``python -m tests.hostile.run``.

Items (the classes of attack): 1 bounded JSON, 2 writers and symbolic
links, 3 ids as paths, 4 escaping per medium, 5 gzip read whole,
6 destructive probes, 7 judge deadline and byte cap, 8 detached
processes, 9 one-line errors, 10 package names and versions as data (never
an installer's option, never a path), 11 a YAML key once per mapping.
"""

import dataclasses
import gzip
import json
import os
import pathlib
import shutil
import sys
import zlib
from typing import Callable

from tests.hostile.servers.hostile_stdio import HOSTILE  # the one string that tries every escape

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "hostile" / "servers"
STDIO = SERVERS / "hostile_stdio.py"
JUDGE = SERVERS / "judge_http.py"
PACK = ("-m", "mcpdelta.survey.pack")
CAPTURES = ROOT / "tests" / "fixtures" / "captures"

# a server id (a folder name: anything but "/" and NUL) as hostile as a tool name, and
# to matplotlib too (two dollar signs start its math text)
HOSTILE_ID = "evil\x1b[31m\x07\n::add-mask::hunter2 <script>alert(1)<\\script> <img src=x> | # heading $\\frac{$ x"
PASSWD = "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n"


@dataclasses.dataclass
class Case:
    name: str
    argv: list                      # after ``mcpdelta``; or a whole command when it starts with "python"
    expected: object = "ok"         # "ok" (exit 0/1), "error" (exit 2 and one line), or exit statuses
    item: int = 0
    slow: bool = False
    env: dict = dataclasses.field(default_factory=dict)
    medium: str = "text"            # of stdout
    outputs: list = dataclasses.field(default_factory=list)    # (path, medium) of files it writes
    untouched: list = dataclasses.field(default_factory=list)  # paths outside its target
    verify: Callable | None = None  # (completed process) -> list of problems
    timeout: float = 120
    around: Callable | None = None  # -> a context manager the case runs in (a server it needs)


def build(folder, items=None) -> list:
    """The cases of ``items`` (default: all), their files made under ``folder``."""
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    outside = d / "outside"  # what no case may write to
    outside.mkdir(exist_ok=True)
    for name in ("passwd", "passwd2", "victim.json", "x.json"):
        (outside / name).write_text(PASSWD if name.startswith("passwd") else '{"tools": []}\n')
    (outside / "victim-folder").mkdir(exist_ok=True)
    _servers(d, "servers-good.yaml", [("good", "ok", "")])
    (d / "ok-2.json").write_text(json.dumps({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}))
    parts = {1: _json_bounds, 2: _links, 3: _ids, 4: _escaping, 5: _gzip, 6: _probes, 7: _judges, 8: _daemons,
             9: _one_line, 10: _package_names, 11: _yaml_keys}
    cases = []
    for item, part in parts.items():
        if items is None or item in items:
            cases += part(d, outside)
    return cases


def _servers(d, name, entries, limits="{timeout_s: 15, total_timeout_s: 60}") -> pathlib.Path:
    """A servers file of hostile_stdio.py servers: entries are (id, mode, extra YAML)."""
    lines = ["servers:"]
    for sid, mode, extra in entries:
        lines.append(f'  - {{id: {json.dumps(sid)}, command: "{{python}}", args: [{json.dumps(str(STDIO))}, '
                     f'{json.dumps(mode)}]{", " + extra if extra else ""}}}')
    lines.append(f"limits: {limits}")
    path = d / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _log(out) -> dict:
    """The crawl log of ``out``: id -> its last row."""
    rows = {}
    path = pathlib.Path(out) / "crawl-log.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
                rows[row["id"]] = row
            except (ValueError, RecursionError, KeyError, TypeError):
                continue  # a line the case itself planted
    return rows


def _text(path) -> str:
    return path.read_text() if path.exists() else ""


def _lake_rows(lake, sql) -> list:
    from mcpdelta.lake import Lake

    return Lake(str(lake)).connect().execute(sql).fetchall()


# --- 1 bounded JSON -----------------------------------------------------------------

def _json_bounds(d, outside):
    deep = _servers(d, "servers-deep.yaml", [
        ("good", "ok", ""), ("banner", "deep-banner", ""), ("answer", "deep-answer", ""),
        ("list", "deep-list", ""), ("probe", "deep-probe", "probes: auto")])
    out = d / "crawl-deep"

    def crawled(_):
        log, problems = _log(out), []
        if set(log) != {"good", "banner", "answer", "list", "probe"}:
            problems.append(f"crawl-log rows for {sorted(log)}")
        for sid in ("banner", "answer", "list"):
            if log.get(sid, {}).get("error_kind") != "too_large":
                problems.append(f"{sid}: {log.get(sid, {}).get('error_kind')}")
        if not (log.get("good", {}).get("ok") and (out / "good").is_dir()):
            problems.append("the good server was not captured")
        probe = json.loads((out / "probe" / "1.0.0.json").read_text()) if (out / "probe" / "1.0.0.json").exists() \
            else {}
        if [p.get("outcome") for p in probe.get("probes", [])] != ["protocol_error"]:
            problems.append(f"the deep probe result: {probe.get('probes')}")
        return problems

    lake = d / "lake-deep"

    def surveyed(_):
        rows = dict(_lake_rows(lake, "SELECT server_id, coalesce(error_kind, 'ok') FROM manifests"))
        want = {"good": "ok", "probe": "ok", "banner": "too_large", "answer": "too_large", "list": "too_large"}
        return [] if rows == want else [f"lake rows {rows}"]

    ci_servers = _servers(d, "servers-ci-deep.yaml", [("good", "ok", ""), ("answer", "deep-answer", "")])
    baselines = d / "baselines-deep"
    baselines.mkdir(exist_ok=True)
    alpha = {"tools": [{"name": "alpha", "description": "First tool, 1.0.0.", "inputSchema": {"type": "object"}}]}
    for sid in ("good", "answer"):  # each has its baseline: the capture itself is what fails
        (baselines / f"{sid}.json").write_text(json.dumps(alpha))
    from mcpdelta.gate import lockfile as L

    lock = d / "alpha.lock.yaml"
    L.write_text(str(lock), L.dump_lockfile(L.build_lockfile(alpha, "answer", {})))
    output = d / "github-output-deep"

    def ci_checked(done):
        text = output.read_text() if output.exists() else ""
        problems = [] if "verdict=error" in text and "servers=2" in text else [f"GITHUB_OUTPUT: {text!r}"]
        if "== good:" not in done.stdout:
            problems.append("the good server was not compared")
        return problems

    prepared = d / "crawl-prepared-log"
    prepared.mkdir(exist_ok=True)
    (prepared / "crawl-log.jsonl").write_text("[" * 100_000 + "\n")
    (d / "deep-100k.json").write_text("[" * 100_000)
    (d / "servers-deep.json").write_text('{"servers": ' + "[" * 100_000)
    good = d / "servers-good.yaml"
    return [
        Case("crawl: four servers answer, print or return 100,000 '['; the fifth is captured",
             ["crawl", "--servers", deep, "--out", out], item=1, verify=crawled),
        Case("survey: one hostile line is that server's failure row, the others captured",
             ["survey", "--servers", deep, "--lake", lake, "--workers", "1", "--report", d / "report-deep"],
             item=1, verify=surveyed),
        Case("ci: a server answering 100,000 '[' is 'could not check' (2), GITHUB_OUTPUT written",
             ["ci", "--servers", ci_servers, "--baseline", baselines], expected=2, item=1,
             env={"GITHUB_OUTPUT": str(output), "GITHUB_ACTIONS": "true"}, verify=ci_checked),
        Case("diff live: a banner of 100,000 '['", ["diff", "live:banner", "live:good", "--servers", deep],
             "error", item=1),
        Case("verify-lock --servers: an answer of 100,000 '['",
             ["verify-lock", "--servers", deep, "--server", "answer", "--lock", lock], "error", item=1),
        Case("diff: a manifest of 100,000 '['", ["diff", d / "deep-100k.json", d / "deep-100k.json"], "error", item=1),
        Case("crawl: a servers.json of 100,000 '['", ["crawl", "--servers", d / "servers-deep.json", "--out",
                                                        d / "crawl-x"], "error", item=1),
        Case("ci: a servers.json of 100,000 '[': one line, and GITHUB_OUTPUT says error",
             ["ci", "--servers", d / "servers-deep.json", "--baseline", baselines], "error", item=1,
             env={"GITHUB_OUTPUT": str(d / "github-output-file")},
             verify=lambda _: [] if "verdict=error" in _text(d / "github-output-file") else ["no verdict=error"]),
        Case("crawl: a crawl log of 100,000 '[' in --out", ["crawl", "--servers", good, "--out", prepared], item=1,
             verify=lambda _: [] if _log(prepared).get("good", {}).get("ok") else ["not captured"]),
    ]


# --- 2 writers and symbolic links ---------------------------------------------------

def _link(path, target):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(path):
        path.unlink()
    os.symlink(target, path)


def _links(d, outside):
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store

    lake_good = d / "lake-good-2"
    if not lake_good.exists():
        store(Lake(str(lake_good)), *rows_from_folder(str(CAPTURES), warn=lambda line: None))
    cases = []
    # the lake's lock: a link to a file, and a dangling one
    for name, target in (("file", outside / "passwd"), ("dangling", outside / "created-by-lock")):
        lake = d / f"lake-lock-{name}"
        if not lake.exists():
            shutil.copytree(lake_good, lake, symlinks=True)
        _link(lake / ".lock", target)
        cases.append(Case(f"ingest: the lake's .lock links to {name}", ["ingest", CAPTURES, "--lake", lake],
                          "error", item=2, untouched=[outside / "passwd", outside / "created-by-lock"]))
    # the report's temporary names and final names
    report = d / "report-links"
    for name in ("survey.md", "survey.html"):
        _link(report / f".{name}.tmp", outside / "passwd")
        _link(report / name, outside / "passwd2")

    def replaced(folder, names):
        return lambda _: [f"{n} is still a link" for n in names if (folder / n).is_symlink()
                          or not (folder / n).is_file()]

    cases.append(Case("report: links at the temporary and the final names", ["report", "--lake", lake_good,
                                                                              "--out", report],
                      item=2, untouched=[outside / "passwd", outside / "passwd2"],
                      outputs=[(report / "survey.md", "markdown"), (report / "survey.html", "html")],
                      verify=replaced(report, ("survey.md", "survey.html"))))
    pngs = d / "report-png-links"
    _link(pngs / ".rule_frequencies.png.tmp", outside / "passwd")
    _link(pngs / "rule_frequencies.png", outside / "passwd2")
    cases.append(Case("report --format png: links at a PNG's names",
                      ["report", "--lake", lake_good, "--out", pngs, "--format", "png", "--plot", "rule_frequencies"],
                      item=2, untouched=[outside / "passwd", outside / "passwd2"],
                      verify=replaced(pngs, ("rule_frequencies.png",))))
    # the crawl log and a capture folder
    good = d / "servers-good.yaml"
    log_out = d / "crawl-log-link"
    _link(log_out / "crawl-log.jsonl", outside / "passwd")
    cases.append(Case("crawl: the crawl log links elsewhere", ["crawl", "--servers", good, "--out", log_out],
                      "error", item=2, untouched=[outside / "passwd"]))
    folder_out = d / "crawl-folder-link"
    _link(folder_out / "good", outside / "victim-folder")
    cases.append(Case("crawl: a capture folder links elsewhere", ["crawl", "--servers", good, "--out", folder_out],
                      item=2, untouched=[outside / "victim-folder"],
                      verify=lambda _: [] if _log(folder_out)["good"]["error_kind"] == "bad_target" else
                      ["the capture was not refused"]))
    # diff --output and a ci baseline written over a link
    diff_out = d / "diff-output-link.md"
    _link(diff_out, outside / "passwd")
    ok = d / "ok-2.json"
    cases.append(Case("diff --output: the report's name links elsewhere",
                      ["diff", ok, ok, "--format", "markdown", "--output", diff_out], item=2,
                      untouched=[outside / "passwd"], outputs=[(diff_out, "markdown")],
                      verify=lambda _: ["still a link"] if diff_out.is_symlink() else []))
    baseline = d / "baselines-link"
    _link(baseline / "good.json", outside / "victim.json")
    cases.append(Case("ci --update-baseline: the baseline links elsewhere",
                      ["ci", "--servers", good, "--baseline", baseline, "--update-baseline"], item=2,
                      untouched=[outside / "victim.json"],
                      verify=lambda _: ["still a link"] if (baseline / "good.json").is_symlink() else []))
    return cases


# --- 3 ids as paths -----------------------------------------------------------------

def _ids(d, outside):
    ids = _servers(d, "servers-ids.yaml", [("good", "ok", ""), ("../x", "ok", ""),
                                           (str(outside / "abs"), "ok", "")])
    baselines = d / "baselines-ids"
    baselines.mkdir(exist_ok=True)
    (baselines / "good.json").write_text(json.dumps({"tools": [
        {"name": "alpha", "description": "First tool, 1.0.0.", "inputSchema": {"type": "object"}}]}))

    def no_stray(_):
        stray = [p for p in (d / "x.json", outside / "abs.json", d / "abs.json") if p.exists()]
        return [f"wrote {p}" for p in stray]

    crawl_out = d / "crawl-ids"
    # pack.py: an unpack whose crawl logs name ids that climb out of the target
    packed = d / "packed-ids"
    for sub in ("captures", "captures-b"):
        (packed / sub).mkdir(parents=True, exist_ok=True)
    rows = [{"id": "../../escaped-by-unpack", "version": "1"}, {"id": "fine", "version": "1"}]
    (packed / "captures-b" / "crawl-log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    packed_junk = d / "packed-junk"
    (packed_junk / "captures-b").mkdir(parents=True, exist_ok=True)
    (packed_junk / "captures-b" / "crawl-log.jsonl").write_text('{"id": "fine"}\nnot json at all\n')
    return [
        Case("ci --update-baseline: ids '../x' and an absolute path", ["ci", "--servers", ids, "--baseline",
                                                                       baselines, "--update-baseline"],
             expected=2, item=3, untouched=[outside / "x.json"], verify=no_stray),
        Case("ci: the baseline of id '../x' is not read from outside", ["ci", "--servers", ids, "--baseline",
                                                                        baselines, "--server", "../x"],
             "error", item=3, untouched=[outside / "x.json"]),
        Case("crawl: ids '../x' and an absolute path stay in --out", ["crawl", "--servers", ids, "--out", crawl_out],
             item=3, verify=lambda _: no_stray(_) + ([] if len(_log(crawl_out)) == 3 else ["not every id logged"])),
        Case("pack.py --unpack: a crawl-log id '../../x'", ["python", *PACK, "--unpack", packed, d / "unpacked-ids"],
             "error", item=3,
             verify=lambda _: ["wrote outside"] if (d / "escaped-by-unpack").exists()
             or (d.parent / "escaped-by-unpack").exists() else []),
        Case("pack.py --unpack: a crawl-log line that is not JSON", ["python", *PACK, "--unpack", packed_junk,
                                                                     d / "unpacked-junk"], "error", item=3),
    ]


# --- 4 escaping per medium -----------------------------------------------------------

def _hostile_manifest(version):
    return {"protocolVersion": "2025-06-18", "serverInfo": {"name": HOSTILE, "version": version},
            "instructions": f"{HOSTILE} {version}",
            "tools": [{"name": HOSTILE, "description": f"{HOSTILE} version {version}",
                       "inputSchema": {"type": "object", "properties": {
                           HOSTILE: {"type": "string" if version == "1.0.0" else "integer", "description": HOSTILE}}}},
                      {"name": f"gone{version}", "description": "plain", "inputSchema": {"type": "object"}}]}


def _escaping(d, outside):
    old, new = d / "hostile-old.json", d / "hostile-new.json"
    old.write_text(json.dumps(_hostile_manifest("1.0.0")))
    new.write_text(json.dumps(_hostile_manifest("2.0.0")))
    cases = [Case(f"diff --format {fmt}: a hostile name", ["diff", old, new, "--format", fmt], item=4,
                  medium={"text": "text", "json": "json", "markdown": "markdown", "sarif": "json",
                          "github": "github", "junit": "xml"}[fmt])
             for fmt in ("text", "json", "markdown", "sarif", "github", "junit")]
    lock = d / "hostile.lock.yaml"
    cases += [
        Case("digest: a hostile name", ["digest", old], item=4),
        Case("lock: a hostile name", ["lock", old, "--out", lock], item=4),
        Case("lock (to standard output): a hostile name", ["lock", old], item=4, medium="yaml"),
        Case("verify-lock: a hostile name", ["verify-lock", new, "--lock", lock], expected=3, item=4),
        Case("verify-lock --format json: a hostile name", ["verify-lock", new, "--lock", lock, "--format", "json"],
             expected=3, item=4, medium="json"),
        Case("lint-bump: a hostile name", ["lint-bump", new, "--lock", lock], item=4),
    ]
    # a crawl folder and a lake whose server id and tool names are hostile
    captures = d / "captures-hostile"
    (captures / HOSTILE_ID).mkdir(parents=True, exist_ok=True)
    shutil.copy(old, captures / HOSTILE_ID / "1.0.0.json")
    shutil.copy(new, captures / HOSTILE_ID / "2.0.0.json")
    lake, report = d / "lake-hostile", d / "report-hostile"

    def shows(path=None, words=("evil",)):
        """The hostile server is in the output (so the checks of it are not vacuous)."""
        def check(done):
            text = done.stdout if path is None else (path.read_text() if path.exists() else "")
            return [f"{w!r} not in the output" for w in words if w not in text]
        return check

    def ingested(_):
        rows = _lake_rows(lake, "SELECT server_id, ok FROM manifests")
        return [] if rows and all(r == (HOSTILE_ID, True) for r in rows) and len(rows) == 2 else [f"rows {rows}"]
    cases += [
        Case("ingest: a hostile server folder", ["ingest", captures, "--lake", lake], item=4,
             verify=ingested),
        Case("survey --no-crawl: a hostile server id and tool names",
             ["survey", "--lake", lake, "--no-crawl", "--workers", "1", "--report", report], item=4,
             outputs=[(report / "survey.md", "markdown"), (report / "survey.html", "html")],
             verify=shows(report / "survey.md", ("evil", "&lt;script", "tool.input.type.changed"))),
    ]
    cases += [Case(f"drift --format {fmt}: a hostile server id and tool names",
                   ["drift", "--lake", lake, "--format", fmt], item=4, verify=shows(),
                   medium={"text": "text", "markdown": "markdown", "html": "html", "json": "json"}[fmt])
              for fmt in ("text", "markdown", "html", "json")]
    cases.append(Case("report: a hostile server id and tool names", ["report", "--lake", lake, "--out",
                                                                       d / "report-hostile-2"],
                      item=4, outputs=[(d / "report-hostile-2" / "survey.html", "html")],
                      verify=shows(d / "report-hostile-2" / "survey.html", ("evil", "&lt;script"))))
    # live: a server whose names are hostile, through crawl and ci
    names = _servers(d, "servers-names.yaml", [("names", "names", "")])
    baselines = d / "baselines-names"
    baselines.mkdir(exist_ok=True)
    shutil.copy(new, baselines / "names.json")
    summary = d / "ci-summary.md"
    cases += [
        Case("crawl: a server whose names are hostile", ["crawl", "--servers", names, "--out", d / "crawl-names"],
             item=4),
        Case("ci: a hostile server's report in every output",
             ["ci", "--servers", names, "--baseline", baselines, "--markdown", summary, "--sarif",
              d / "ci.sarif"], expected=1, item=4, env={"GITHUB_ACTIONS": "true"}, medium="github",
             outputs=[(summary, "markdown"), (d / "ci.sarif", "json")]),
    ]
    ids = _servers(d, "servers-evil-id.yaml", [("good", "ok", ""), (HOSTILE_ID, "ok", "")])
    cases.append(Case("ci: a server id holding a newline and a workflow command",
                      ["ci", "--servers", ids, "--baseline", d / "baselines-evil-id", "--update-baseline",
                       "--markdown", d / "ci-evil-id.md"], expected=2, item=4, env={"GITHUB_ACTIONS": "true"},
                      medium="github", outputs=[(d / "ci-evil-id.md", "markdown")]))
    # the study's write-up over two capture passes of a hostile folder
    passes = []
    for name in ("pass-a", "pass-b"):
        folder = d / f"study-{name}"
        (folder / HOSTILE_ID).mkdir(parents=True, exist_ok=True)
        shutil.copy(old, folder / HOSTILE_ID / "1.0.0.json")
        shutil.copy(new, folder / HOSTILE_ID / "2.0.0.json")
        rows = [{"id": HOSTILE_ID, "version": v, "ok": True, "captured_at": f"2026-01-0{i}T00:00:00Z",
                 "transport": "stdio", "client": {"name": name, "version": "1"}} for i, v in ((1, "1.0.0"),
                                                                                          (2, "2.0.0"))]
        (folder / "crawl-log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        passes.append(folder)
    study = d / "study-out"
    _link(study / "README.md", outside / "passwd")
    _link(study / ".README.md.tmp", outside / "passwd2")
    cases.append(Case("study: a hostile folder written up (README over links)",
                      ["study", names, "--out", study, "--work", d / "study-work", "--workers", "1",
                       "--captures", *passes], item=4, slow=True, timeout=300,
                      untouched=[outside / "passwd", outside / "passwd2"],
                      outputs=[(study / "README.md", "markdown")],
                      verify=lambda done: (["README.md is still a link"] if (study / "README.md").is_symlink() else
                                           shows(study / "README.md", ("evil", "&lt;script", "BREAKING"))(done))))
    return cases


# --- 5 gzip --------------------------------------------------------------------------

def _gzip(d, outside):
    folder = d / "captures-gzip"
    alpha = folder / "alpha"
    alpha.mkdir(parents=True, exist_ok=True)
    whole = gzip.compress(b'{"tools": []}', mtime=0)
    (alpha / "1.0.0.json.gz").write_bytes(whole)
    (alpha / "1.1.0.json.gz").write_bytes(whole[:-8])                           # no trailer
    (alpha / "1.2.0.json.gz").write_bytes(whole[:-8] + b"\0\0\0\0" + whole[-4:])  # a wrong CRC
    (alpha / "1.3.0.json.gz").write_bytes(whole + b"trailing garbage")
    (alpha / "1.4.0.json.gz").write_bytes(whole + gzip.compress(b'{"more": 1}', mtime=0))  # two members
    lake = d / "lake-gzip"

    def stored(_):
        rows = dict(_lake_rows(lake, "SELECT version, ok FROM manifests"))
        want = {"1.0.0": True, "1.1.0": False, "1.2.0": False, "1.3.0": False, "1.4.0": False}
        return [] if rows == want else [f"rows {rows}"]

    packed = d / "packed-gzip"
    (packed / "captures" / "srv").mkdir(parents=True, exist_ok=True)
    (packed / "captures-b").mkdir(parents=True, exist_ok=True)
    (packed / "captures-b" / "crawl-log.jsonl").write_text('{"id": "srv", "version": "1"}\n')
    (packed / "captures" / "srv" / "1.json.gz").write_bytes(whole[:-8])
    bomb = d / "bomb.json.gz"  # 256 MiB of a JSON string, 250 KB on disk
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb.write_bytes(pack.compress(b'{"tools": [], "x": "') + b"".join(pack.compress(b" " * (1 << 20))
                                                                     for _ in range(256)) + pack.flush())
    limits = d / "limits-1mb.yml"
    limits.write_text("limits: {max_bytes: 1000000}\n")
    ok = d / "ok-2.json"
    return [
        Case("diff: a gzip bomb", ["diff", ok, bomb], "error", item=5,
             verify=lambda done: [] if "decompresses to more than the 67108864-byte limit" in done.stderr else
             [f"stderr {done.stderr[-200:]!r}"]),
        Case("diff --config max_bytes 1 MB: a gzip bomb", ["diff", bomb, ok, "--config", limits], "error", item=5,
             verify=lambda done: [] if "decompresses to more than the 1000000-byte limit" in done.stderr else
             [f"stderr {done.stderr[-200:]!r}"]),
        Case("digest, lock: a gzip bomb", ["digest", bomb], "error", item=5),
        Case("diff: two gzipped captures", ["diff", alpha / "1.0.0.json.gz", ROOT / "data" / "ecosystem" / "captures"
                                            / "pagerduty-mcp" / "1.0.0.json.gz"], "ok", item=5),
        Case("ingest: gzip cut short, a wrong CRC, trailing bytes, two members: error rows", ["ingest", folder,
                                                                                               "--lake", lake],
             item=5, verify=stored),
        Case("pack.py --unpack: an archive cut short", ["python", *PACK, "--unpack", packed, d / "unpacked-gzip"],
             "error", item=5),
    ]


# --- 6 probes ------------------------------------------------------------------------

def _probes(d, outside):
    cases = []
    calls = "probes: [{tool: wipe}, {tool: touch}, {tool: look}]"
    for flag, want in (([], "touch\nlook\n"), (["--allow-destructive-probes"], "wipe\ntouch\nlook\n")):
        marker = d / f"marker-crawl{len(flag)}"
        servers = _servers(d, f"servers-probes{len(flag)}.yaml",
                           [("probes", "probes", f'env: {{MARKER: "{marker}"}}, {calls}')])
        out = d / f"crawl-probes{len(flag)}"

        def called(_, marker=marker, want=want, out=out, flag=flag):
            got = marker.read_text() if marker.exists() else ""
            problems = [] if got == want else [f"called {got!r}"]
            warnings = " ".join(_log(out).get("probes", {}).get("warnings", []))
            if not flag and "refused" not in warnings:
                problems.append("the refusal is not recorded")
            return problems
        cases.append(Case(f"crawl {' '.join(flag)}: probes of a destructive, an unannotated and a read-only tool",
                          ["crawl", "--servers", servers, "--out", out, *flag], item=6, verify=called))
    # a lockfile (a file a pull request can change) pinning a call to each tool
    from mcpdelta.gate import lockfile as L

    marker = d / "marker-lock"
    servers = _servers(d, "servers-probes-lock.yaml", [("probes", "probes", f'env: {{MARKER: "{marker}"}}')])
    tools = [{"name": "wipe", "description": "Deletes everything.", "inputSchema": {"type": "object"},
              "annotations": {"destructiveHint": True, "readOnlyHint": False}},
             {"name": "touch", "description": "Changes something.", "inputSchema": {"type": "object"}},
             {"name": "look", "description": "Reads.", "inputSchema": {"type": "object"},
              "annotations": {"readOnlyHint": True}}]
    answered = {"content": [{"type": "text", "text": "ok"}]}
    manifest = {"tools": tools, "probes": [{"name": f"pin-{t['name']}", "tool": t["name"], "arguments": {},
                                            "outcome": "result", "result": answered} for t in tools]}
    lock = d / "probes.lock.yaml"
    L.write_text(str(lock), L.dump_lockfile(L.build_lockfile(manifest, "probes", {})))

    def only_look(_):
        got = marker.read_text() if marker.exists() else ""
        return [] if got == "look\n" else [f"called {got!r}"]
    cases.append(Case("verify-lock --servers: a lockfile pins calls to a destructive and an unannotated tool",
                      ["verify-lock", "--servers", servers, "--server", "probes", "--lock", lock], expected=(0, 3),
                      item=6, verify=only_look))
    return cases


# --- 7 judges ------------------------------------------------------------------------

class _JudgeEndpoint:
    """judge_http.py started for a case, and the config naming it; stopped after."""

    def __init__(self, mode, config):
        self.mode, self.config, self.proc = mode, config, None

    def __enter__(self):
        import subprocess

        self.proc = subprocess.Popen([sys.executable, str(JUDGE), self.mode], stdout=subprocess.PIPE, text=True)
        port = int(self.proc.stdout.readline())
        self.config.write_text(f"judges:\n  - endpoint: http://127.0.0.1:{port}/v1\n"
                               f"    model: hostile-{self.mode}\n    timeout: 1s\n")
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def _judges(d, outside):
    old, new = d / "judge-old.json", d / "judge-new.json"
    old.write_text(json.dumps({"tools": [{"name": "a", "description": "Reads a file.",
                                          "inputSchema": {"type": "object"}}]}))
    new.write_text(json.dumps({"tools": [{"name": "a", "description": "Deletes a file.",
                                          "inputSchema": {"type": "object"}}]}))
    cases = []
    for mode, words in (("drip", "timed out"), ("huge", "larger than"), ("deep", "judge")):
        config = d / f"judge-{mode}.yml"
        case = Case(f"diff --semantic: a judge endpoint that answers {mode}",
                    ["diff", old, new, "--semantic", "--config", config, "--format", "json", "--witness", "never"],
                    item=7, medium="json", timeout=60, env={"MCPDELTA_CACHE_DIR": str(d / f"judge-cache-{mode}")},
                    around=lambda mode=mode, config=config: _JudgeEndpoint(mode, config))

        def noted(done, words=words, mode=mode):
            try:
                notes = [n for c in json.loads(done.stdout)["changes"] for n in c["advisory"]]
            except (ValueError, KeyError):
                return [f"no JSON report: {done.stdout[:200]!r}"]
            if mode != "deep" and not any(words in (n.get("summary") or "") for n in notes):
                return [f"notes {notes}"]
            return []
        case.verify = noted
        cases.append(case)
    return cases


# --- 8 processes that detach ---------------------------------------------------------

def _daemons(d, outside):
    cases = []
    for confine in ("cgroup", "scan"):
        pidfile = d / f"daemon-{confine}.pid"
        servers = _servers(d, f"servers-daemon-{confine}.yaml",
                           [("daemon", "daemon", f'env: {{PIDFILE: "{pidfile}"}}')])
        out = d / f"crawl-daemon-{confine}"

        def ended(_, pidfile=pidfile, out=out, confine=confine):
            if not pidfile.exists():
                return ["the server wrote no pid"]
            pid = int(pidfile.read_text())
            problems = [f"the detached process {pid} still runs"] if _running(pid) else []
            warnings = " ".join(_log(out).get("daemon", {}).get("warnings", []))
            if "ended 1 process" not in warnings:
                problems.append(f"not recorded: {warnings!r}")
            if _running(pid):
                os.kill(pid, 9)
            return problems
        env = {"MCPDELTA_CONFINE": "scan"} if confine == "scan" else {}
        cases.append(Case(f"crawl: a server's grandchild double-forks, setsid, clears its environment ({confine})",
                          ["crawl", "--servers", servers, "--out", out], item=8, env=env, verify=ended))
    return cases


def _running(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


# --- 9 one-line errors ---------------------------------------------------------------

def _one_line(d, outside):
    ok = d / "ok-2.json"
    return [Case("diff: a git: side holding a newline and a workflow command",
                 ["diff", "git:HEAD\n::add-mask::hunter2:x.json", ok], "error", item=9),
            Case("diff: a file name holding ESC and a newline", ["diff", d / "no\x1b[31m\nsuch.json", ok], "error",
                 item=9)]


# --- 10 package names and versions are data -----------------------------------------

HOSTILE_PACKAGES = ["-r/path/reqfile", "--index-url=http://127.0.0.1:9/evil", "../../../../../etc/x"]
# registries on a closed port: a look-up or an install that slipped through fails, never reaches the network
_NO_REGISTRY = {"MCPDELTA_PYPI_URL": "http://127.0.0.1:9", "npm_config_registry": "http://127.0.0.1:9/"}


def _package_names(d, outside):
    """A servers file's package name or version that an installer would read
    as an option (``-r FILE``, ``--index-url``) or a registry as a path: the
    load refuses it, naming the entry, before anything is looked up or run.
    The registries named are a closed port, so a look-up that slipped through
    fails rather than reaching the network."""
    reqfile = d / "path-reqfile"
    reqfile.write_text("--index-url http://127.0.0.1:9/evil\nevil-package\n")
    env = _NO_REGISTRY | {"MCPDELTA_CACHE": str(d / "names-cache")}
    cases = []

    def refused(out, words):
        def check(done):
            problems = [] if "servers[0] (evil)" in done.stderr and words in done.stderr else [
                f"stderr {done.stderr[-300:]!r}"]
            if (out / "crawl-log.jsonl").exists() or (d / "names-cache").exists():
                problems.append("something was looked up or installed")
            return problems
        return check

    for registry in ("pypi", "npm"):
        words = "PyPI project name" if registry == "pypi" else "npm package name"
        for i, name in enumerate([n.replace("/path/reqfile", str(reqfile)) for n in HOSTILE_PACKAGES]):
            servers = d / f"servers-name-{registry}-{i}.yaml"
            servers.write_text(f"servers:\n  - {{id: evil, package: {{registry: {registry}, name: {json.dumps(name)}, "
                               f"versions: [1.0.0]}}}}\n")
            out = d / f"crawl-name-{registry}-{i}"
            cases.append(Case(f"crawl: a {registry} package named {name!r}",
                              ["crawl", "--servers", servers, "--out", out], "error", item=10, env=env,
                              untouched=[reqfile], verify=refused(out, words)))
        for i, version in enumerate(["--index-url=http://127.0.0.1:9/evil", f"-r{reqfile}"]):
            servers = d / f"servers-version-{registry}-{i}.yaml"
            servers.write_text(f"servers:\n  - {{id: evil, package: {{registry: {registry}, name: fine, "
                               f"versions: [{json.dumps(version)}]}}}}\n")
            out = d / f"crawl-version-{registry}-{i}"
            cases.append(Case(f"crawl: a {registry} version {version!r}", ["crawl", "--servers", servers, "--out", out],
                              "error", item=10, env=env, verify=refused(out, "version")))
    # a registry answer: the hostile entries fail alone, nothing installed
    registry_json = d / "registry-hostile.json"
    registry_json.write_text(json.dumps({"servers": [
        {"server": {"name": f"io.x/evil-{i}", "packages": [{"registryType": kind, "identifier": name,
                                                             "version": "1.0.0"}]}}
        for i, (kind, name) in enumerate((k, n) for k in ("pypi", "npm") for n in HOSTILE_PACKAGES)]}))
    out = d / "crawl-registry-hostile"

    def failed_alone(_):
        rows = _log(out)
        wrong = [f"{sid}: {row.get('error')}" for sid, row in rows.items()
                 if row.get("ok") or not any(w in (row.get("error") or "") for w in ("PyPI project name",
                                                                                         "npm package name"))]
        if len(rows) != 2 * len(HOSTILE_PACKAGES) or wrong:
            return [f"{len(rows)} rows", *wrong]
        return ["something was installed"] if (d / "names-cache").exists() else []
    cases.append(Case("crawl: a registry answer's hostile package names", ["crawl", "--servers", registry_json,
                                                                           "--out", out],
                      1, item=10, env=env, verify=failed_alone))
    return cases


# --- 11 a YAML key once -------------------------------------------------------------

def _yaml_keys(d, outside):
    """A key twice in one mapping, in every kind of YAML the project reads:
    refused with the file, the line and the key (YAML's own reading keeps
    the last; a reviewer reads the first)."""
    ok = d / "ok-2.json"
    lock = d / "lock-empty.yaml"
    lock.write_text("version: 1\ntools: {}\n")
    approval = ("  - fingerprint: 0123456789abcdef\n    rule: tool.removed\n    entity: zip\n"
                "    reason: moved to the files server\n")
    kinds = [
        ("approvals: expires twice", "approvals-expires.yml",
         f"version: 1\napprovals:\n{approval}    expires: 2000-01-01\n    expires: 2999-01-01\n",
         ["diff", ok, ok, "--approvals"], 8, "expires"),
        ("approvals: two approvals lists", "approvals-two-lists.yml",
         f"version: 1\napprovals:\n{approval}    expires: 2000-01-01\napprovals: []\n",
         ["diff", ok, ok, "--approvals"], 8, "approvals"),
        ("config: fail_on twice", "config-twice.yml", "fail_on: BREAKING\nprofile: strict\nfail_on: never\n",
         ["diff", ok, ok, "--config"], 3, "fail_on"),
        ("config: an ignore entry's rule twice", "config-ignore-twice.yml",
         "ignore:\n  - rule: tool.removed\n    rule: tool.added\n    reason: x\n", ["diff", ok, ok, "--config"], 3,
         "rule"),
        ("judges config: a judge's model twice", "config-judges-twice.yml",
         "judges:\n  - name: a\n    endpoint: http://127.0.0.1:9/v1\n    model: cheap\n    model: dear\n",
         ["diff", ok, ok, "--semantic", "--config"], 5, "model"),
        ("servers file: an entry's id twice", "servers-id-twice.yaml",
         "servers:\n  - id: a\n    command: python\n    id: b\n", ["crawl", "--out", d / "crawl-keys", "--servers"],
         4, "id"),
        ("servers file: a package's registry twice", "servers-registry-twice.yaml",
         "servers:\n  - id: a\n    package: {registry: npm, name: fine, registry: pypi}\n",
         ["crawl", "--out", d / "crawl-keys", "--servers"], 3, "registry"),
        ("servers file (recipe): an env variable twice", "servers-env-twice.yaml",
         "servers:\n  - id: a\n    command: python\n    env:\n      MODE: safe\n      MODE: evil\n",
         ["crawl", "--out", d / "crawl-keys", "--servers"], 6, "MODE"),
        ("servers file: limits twice", "servers-limits-twice.yaml",
         "servers: []\nlimits: {timeout_s: 5}\nlimits: {timeout_s: 500}\n",
         ["crawl", "--out", d / "crawl-keys", "--servers"], 3, "limits"),
        ("registry server.json: a package's identifier twice", "server-twice.json",
         '{"name": "io.x/a",\n "packages": [{"registryType": "npm", "identifier": "fine",\n'
         '               "identifier": "-r/etc/passwd", "version": "1.0.0"}]}\n',
         ["crawl", "--out", d / "crawl-keys", "--servers"], None, "identifier"),
        ("lockfile: a tool twice", "lock-tool-twice.yaml",
         "version: 1\ntools:\n  a: {semver: 1.0.0, contract_digest: 'sha256:00'}\n"
         "  a: {semver: 2.0.0, contract_digest: 'sha256:11'}\n", ["verify-lock", ok, "--lock"], 4, "a"),
        ("versions file: a tool twice", "versions-twice.yaml", "a: 1.0.0\na: 2.0.0\n",
         ["lint-bump", ok, "--lock", lock, "--versions"], 2, "a"),
    ]
    cases = []
    for name, file_name, text, argv, line, key in kinds:
        path = d / file_name
        path.write_text(text)

        def named(done, path=path, line=line, key=key):
            want = [str(path) if line is None else f"{path}:{line}", f"duplicate key {key!r}"]  # JSON: no line
            return [] if all(w in done.stderr for w in want) else [f"stderr {done.stderr[-300:]!r}, want {want}"]
        cases.append(Case(f"{name}: refused with the file, line and key", [*argv, path], "error", item=11,
                          verify=named, env=_NO_REGISTRY | {"MCPDELTA_CACHE": str(d / "keys-cache")}))
    return cases
