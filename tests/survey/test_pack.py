"""mcpdelta.survey.pack: a crawl folder packed for the repository, and
with ``--plan`` only what the servers file still plans."""

import gzip
import json

from mcpdelta.survey import pack

PLAN = """servers:
  - {id: kept, package: {registry: npm, name: kept, versions: [1.0.0, 1.2.0, '>1.2.0']}}
  - {id: live, command: node, args: [server.js]}
"""


def crawl_folder(out, releases):
    """OUT/a with a manifest and a log row per (server, version); a failed look-up row has no version."""
    rows = []
    for i, (server, version) in enumerate(releases):
        row = {"id": server, "version": version, "ok": version is not None,
               "captured_at": f"2026-12-01T00:00:{i:02d}Z"}
        rows.append(json.dumps(row))
        if version is not None:
            (out / "a" / server).mkdir(parents=True, exist_ok=True)
            (out / "a" / server / f"{version}.json").write_text(json.dumps({"tools": [], "v": version}))
    (out / "a" / "crawl-log.jsonl").write_text("\n".join(rows) + "\n")


def test_a_plan_keeps_what_it_plans_and_drops_the_rest(tmp_path):
    out, dest = tmp_path / "out", tmp_path / "data"
    releases = [("kept", "1.0.0"), ("kept", "1.1.0"),  # 1.1.0: dropped from the plan since
                ("kept", "1.3.0"),                     # after the '>1.2.0' selector: a nightly's new release
                ("excluded", "2.0.0"),                 # a server the plan no longer lists
                ("live", "x"), ("kept", None)]
    crawl_folder(out, releases)
    stale = dest / "captures" / "kept" / "1.1.0.json.gz"  # packed before the plan dropped it
    stale.parent.mkdir(parents=True)
    stale.write_bytes(gzip.compress(b"{}"))
    plan = tmp_path / "servers.yaml"
    plan.write_text(PLAN)
    pack.pack(out, dest, plan)
    packed = sorted(str(p.relative_to(dest / "captures")) for p in (dest / "captures").glob("*/*.json.gz"))
    assert packed == ["kept/1.0.0.json.gz", "kept/1.3.0.json.gz", "live/x.json.gz"]
    log = [json.loads(line) for line in (dest / "captures" / "crawl-log.jsonl").read_text().splitlines()]
    assert [(r["id"], r["version"]) for r in log] == [("kept", "1.0.0"), ("kept", "1.3.0"), ("live", "x"),
                                                      ("kept", None)]


def test_without_a_plan_everything_is_packed_and_packing_again_writes_nothing(tmp_path):
    out, dest = tmp_path / "out", tmp_path / "data"
    crawl_folder(out, [("kept", "1.0.0"), ("excluded", "2.0.0")])
    assert pack.pack(out, dest) == 2
    assert pack.pack(out, dest) == 0  # same bytes: nothing rewritten
    assert gzip.decompress((dest / "captures" / "excluded" / "2.0.0.json.gz").read_bytes()) == \
        (out / "a" / "excluded" / "2.0.0.json").read_bytes()


def test_unpack_marks_what_both_passes_did_and_leaves_a_half_done_server_to_crawl_again(tmp_path):
    out, dest, back = tmp_path / "out", tmp_path / "data", tmp_path / "resumed"
    crawl_folder(out, [("both", "1.0.0"), ("half", "1.0.0"), ("half", "2.0.0")])
    (out / "b" / "both").mkdir(parents=True)  # the second pass reached "both" only
    (out / "b" / "both" / "1.0.0.json").write_text(json.dumps({"tools": [], "v": "1.0.0"}))
    (out / "b" / "crawl-log.jsonl").write_text(json.dumps({"id": "both", "version": "1.0.0", "ok": True,
                                                           "captured_at": "2026-12-01T00:01:00Z"}) + "\n")
    pack.pack(out, dest)
    assert pack.unpack(dest, back) == 2
    assert sorted(p.name for p in (back / "done").iterdir()) == ["both"]
    assert sorted(str(p.relative_to(back)) for p in back.glob("*/*/*.json")) == ["a/both/1.0.0.json",
                                                                                 "b/both/1.0.0.json"]
    # "half" has no capture and no log row left: its first pass installs and captures it again
    assert [json.loads(line)["id"] for line in (back / "a" / "crawl-log.jsonl").read_text().splitlines()] == ["both"]
