"""Hostile inputs for every command, built into a folder, and how each one
must end: ``"error"`` (exit 2, or 3 for verify-lock's unreadable input, and
one line on stderr) or ``"ok"`` (exit 0 or 1: the input is accepted, maybe
with warnings). Never a traceback, never a hang.

``build(folder)`` writes the inputs and returns the cases as
``(name, argv, expected, slow)``; ``argv`` follows ``mcpdelta``.
"""

import json
import os
import pathlib
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "tests" / "fixtures" / "captures"
OK = {"tools": [{"name": "a", "description": "A.", "inputSchema": {"type": "object"}}]}


def _bomb(levels=9):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def build(folder) -> list:
    d = pathlib.Path(folder)
    d.mkdir(parents=True, exist_ok=True)

    def put(name, data):
        path = d / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return path

    ok = put("ok.json", json.dumps(OK))
    put("ok2.json", json.dumps({"tools": [{**OK["tools"][0], "description": "B."}]}))
    put("broken.json", '{"tools": [')
    put("binary.json", b"\xff\xfe not utf8")
    put("empty.json", "")
    put("array.json", "[]")
    put("duplicate.json", '{"tools": [], "tools": []}')
    put("duplicate-inner.json", '{"tools": [{"name": "a", "name": "b"}]}')
    put("deep.json", '{"x": ' + "[" * 5000 + "]" * 5000 + "}")
    put("nan.json", '{"tools": [{"name": "a", "inputSchema": {"maximum": NaN}}]}')
    put("huge-number.json", '{"tools": [{"name": "a", "inputSchema": {"maximum": 1e999}}]}')
    put("surrogate.json", '{"tools": [{"name": "\\ud800", "inputSchema": {"type": "object"}}]}')
    put("tools-object.json", '{"tools": {}}')
    put("nameless.json", '{"tools": [{"inputSchema": {}}]}')
    (d / "a-folder.json").mkdir(exist_ok=True)
    _special(d)
    put(os.fsdecode(b"caf\xe9.json"), json.dumps(OK))

    # configs
    put("bomb.yml", _bomb())
    put("recursive.yml", "ignore: &a [*a]\n")
    put("deep.yml", "profile: " + "[" * 5000 + "]" * 5000 + "\n")
    put("nan-limit.yml", "limits: {max_bytes: .nan}\n")
    put("negative-limit.yml", "limits: {max_depth: -3}\n")
    put("zero-limit.yml", "limits: {max_depth: 0}\n")
    put("huge-depth-limit.yml", "limits: {max_depth: 100000000}\n")
    put("binary.yml", b"profile: \xff\xfe\n")
    put("unknown-key.yml", "colour: blue\n")

    # lockfiles
    put("lock-bomb.yaml", _bomb() + "version: 1\ntools: {}\n")
    put("lock-recursive.yaml", "version: 1\ntools: &t {a: *t}\n")
    put("lock-true.yaml", "version: true\ntools: {}\n")
    put("lock-float.yaml", "version: 1\ntools: {a: {semver: 1.10, contract_digest: 'sha256:00'}}\n")
    put("lock-deep.yaml", "version: 1\ntools: " + "[" * 5000 + "]" * 5000 + "\n")
    put("lock-binary.yaml", b"version: 1\ntools: \xff\n")

    # servers files
    put("servers-bomb.yaml", _bomb() + "servers: []\n")
    put("servers-recursive.yaml", "servers: &s [*s]\n")
    put("servers-deep.yaml", "servers: " + "[" * 5000 + "]" * 5000 + "\n")
    put("servers-binary.yaml", b"servers: \xff\n")

    lakes = _lakes(d)
    untidy = _untidy(d)
    (d / "a-file").write_text("x")

    cases = []

    def case(name, argv, expected="error", slow=False):
        cases.append((name, [str(a) for a in argv], expected, slow))

    bad_manifests = ["broken.json", "binary.json", "missing.json", "empty.json", "array.json",
                     "duplicate.json", "duplicate-inner.json", "deep.json", "nan.json",
                     "huge-number.json", "tools-object.json", "nameless.json", "a-folder.json",
                     "fifo.json", "zero.json", "dangling.json", "loop.json"]
    for bad in bad_manifests:
        case(f"diff {bad}", ["diff", ok, d / bad])
    for bad in ("broken.json", "binary.json", "missing.json", "fifo.json", "zero.json", "duplicate.json"):
        case(f"digest {bad}", ["digest", d / bad])
        case(f"lock {bad}", ["lock", d / bad])
        case(f"verify-lock {bad}", ["verify-lock", d / bad, "--lock", d / "lock-true.yaml"])
        case(f"lint-bump {bad}", ["lint-bump", d / bad, "--lock", d / "lock-true.yaml"])
    case("diff surrogate name", ["diff", ok, d / "surrogate.json", "--format", "json"])
    case("diff non-UTF-8 file name", ["diff", ok, d / os.fsdecode(b"caf\xe9.json")], "ok")
    for config in ("bomb.yml", "recursive.yml", "deep.yml", "nan-limit.yml", "negative-limit.yml",
                   "zero-limit.yml", "huge-depth-limit.yml", "binary.yml", "unknown-key.yml", "fifo.json", "zero.json",
                   "a-folder.json", "missing.yml"):
        case(f"diff --config {config}", ["diff", ok, ok, "--config", d / config])
    for lock in ("lock-bomb.yaml", "lock-recursive.yaml", "lock-true.yaml", "lock-float.yaml",
                 "lock-deep.yaml", "lock-binary.yaml", "fifo.json", "zero.json", "missing.yaml"):
        case(f"verify-lock --lock {lock}", ["verify-lock", ok, "--lock", d / lock])
        case(f"lint-bump --lock {lock}", ["lint-bump", ok, "--lock", d / lock])
        case(f"lock --lock {lock}", ["lock", ok, "--lock", d / lock])
    for servers in ("servers-bomb.yaml", "servers-recursive.yaml", "servers-deep.yaml",
                    "servers-binary.yaml", "fifo.json", "zero.json", "missing.yaml"):
        case(f"crawl --servers {servers}", ["crawl", "--servers", d / servers, "--out", d / "crawl-out"])

    # lakes: every reader and writer on each broken lake
    for name, lake in lakes.items():
        for argv in (["survey", "--lake", lake, "--no-crawl", "--workers", "1", "--report", d / "r"],
                     ["report", "--lake", lake, "--out", d / "r"],
                     ["drift", "--lake", lake],
                     ["ingest", CAPTURES, "--lake", lake]):
            # ingest reads only the partitions of the servers it stores (a crawl task on a
            # cluster reads its own): a broken file under another server's is not its to read,
            # and every reader of the whole lake still refuses it
            expected = "ok" if name == "file-uri" or (name, argv[0]) == ("foreign-schema", "ingest") else "error"
            case(f"{argv[0]} on lake {name}", argv, expected, slow=True)
    case("survey --no-crawl on a missing lake", ["survey", "--lake", d / "no-lake", "--no-crawl"], slow=True)
    case("report --out a file", ["report", "--lake", lakes["file-uri"], "--out", d / "a-file"], slow=True)
    case("crawl --out a file", ["crawl", "--servers", d / "servers-empty.yaml", "--out", d / "a-file"])
    put("servers-empty.yaml", "servers: []\n")
    for name, folder in untidy.items():
        case(f"ingest untidy: {name}", ["ingest", folder, "--lake", d / f"lake-untidy-{name}"], "ok", slow=True)
    return cases


def _special(d):
    """A FIFO, a link to /dev/zero, a dangling link and a link loop."""
    for name, target in (("zero.json", "/dev/zero"), ("dangling.json", "nowhere.json"),
                         ("loop.json", "loop.json")):
        path = d / name
        if not os.path.lexists(path):
            os.symlink(target, path)
    if not os.path.exists(d / "fifo.json"):
        os.mkfifo(d / "fifo.json")


def _lakes(d) -> dict:
    """Lakes broken each one way (from a copy of one small good lake)."""
    from mcpdelta.lake import Lake
    from mcpdelta.lake.ingest import rows_from_folder, store

    good = d / "lake-good"
    if not good.exists():
        store(Lake(str(good)), *rows_from_folder(str(CAPTURES), warn=lambda line: None))
    lakes = {}

    def copy(name):
        target = d / f"lake-{name}"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(good, target)
        lakes[name] = target
        return sorted((target / "manifests" / "v1").glob("server_id=*/*.parquet"))[0]

    path = copy("truncated")
    path.write_bytes(path.read_bytes()[:100])
    copy("empty-file").write_bytes(b"")
    copy("junk").write_bytes(b"PAR1 junk junk junk" * 50)
    foreign = copy("foreign-schema").parent.parent / "server_id=intruder" / "part-x.parquet"
    foreign.parent.mkdir()
    pq.write_table(pa.table({"server_id": ["x"], "colour": ["red"]}), foreign)
    lakes["is-a-file"] = d / "a-file"
    lakes["s3-uri"] = "s3://bucket/lake"
    lakes["unknown-uri"] = "gopher://host/lake"
    copy("file-uri")
    lakes["file-uri"] = f"file://{d / 'lake-file-uri'}"
    return lakes


def _untidy(d) -> dict:
    """Capture folders with one untidy thing each (ingest warns and goes on)."""
    folders = {}

    def folder(name):
        target = d / f"captures-{name}"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(CAPTURES, target, symlinks=True)
        folders[name] = target
        return target

    log = {"id": "alpha", "version": "1.0.0", "ok": True, "client": "me", "duration_ms": "slow",
           "captured_at": 12, "transport": ["stdio"]}
    surrogate = '{"id": "\\ud800", "version": "1", "ok": false}'  # a lone surrogate, JSON-escaped
    (folder("log-wrong-types") / "crawl-log.jsonl").write_text(
        json.dumps(log) + "\n[1, 2]\n\"x\"\n" + surrogate + "\n")
    odd = folder("surrogates")
    (odd / "alpha" / "5.0.0.json").write_text('{"instructions": "\\ud800", "tools": []}')
    (odd / "alpha" / "6.0.0.json").write_text('{"tools": [{"name": "t", "description": "\\udc00"}]}')
    target = folder("log-is-a-folder") / "crawl-log.jsonl"
    if target.exists():
        target.unlink()
    target.mkdir()
    (folder("log-not-utf8") / "crawl-log.jsonl").write_bytes(b'{"id": "\xff", "version": "1"}\n\xfe\xff\n')
    base = folder("links")
    os.symlink("nowhere.json", base / "alpha" / "9.9.9.json")
    os.symlink("loop.json", base / "alpha" / "loop.json")
    os.symlink("/dev/zero", base / "alpha" / "8.8.8.json")
    os.symlink("/dev/zero", base / "zero-server")
    os.symlink("nowhere", base / "dangling-server")
    os.mkfifo(base / "alpha" / "7.7.7.json")
    names = folder("non-utf8-names")
    (names / os.fsdecode(b"serv\xe9r")).mkdir()
    (names / os.fsdecode(b"serv\xe9r") / "1.0.0.json").write_text(json.dumps(OK))
    (names / "alpha" / os.fsdecode(b"1.\xff.json")).write_text(json.dumps(OK))
    return folders
