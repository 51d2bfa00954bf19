"""The crawl log in the lake (``attempts``) and ``survey --pairs latest``."""

import json

from mcpdelta.engine.policy import Policy
from mcpdelta.lake import Lake
from mcpdelta.lake.ingest import rows_from_folder, store
from mcpdelta.survey.diffstage import count_pairs, engine_version, policy_hash, run_diff_stage


def crawl_folder(path, log):
    """A crawl folder: one manifest per ok log entry, and the log."""
    for entry in log:
        if entry["ok"]:
            folder = path / entry["id"]
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{entry['version']}.json").write_text(json.dumps(entry.pop("manifest")))
    (path / "crawl-log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    return path


def entry(version, ok=True, tools=("a",), **more):
    row = {"id": "s", "version": version, "ok": ok, "error_kind": None if ok else "install_failed",
           "error": None if ok else f"npm install s@{version}: ETARGET", "duration_ms": 5,
           "captured_at": f"2026-01-0{version[-1]}T00:00:00Z", "transport": "stdio",
           "published_at": "2025-06-01T00:00:00Z", "client": {"name": "mcpdelta-crawler", "version": "1"},
           "offered_protocol": "2025-11-25", "protocol": "2025-06-18" if ok else None}
    if ok:
        row["manifest"] = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in tools]}
    row.update(more)
    return row


def test_a_failed_attempt_in_the_log_is_an_error_row_and_an_attempt(tmp_path):
    folder = crawl_folder(tmp_path / "crawl", [entry("1.0.1"), entry("1.0.2", ok=False)])
    lake = Lake(str(tmp_path / "lake"))
    counts = store(lake, *rows_from_folder(str(folder)))
    assert (counts["added"], counts["errors"], counts["attempts"]) == (2, 1, 2)
    con = lake.connect()
    assert con.execute("SELECT version, ok, error_kind FROM manifests ORDER BY version").fetchall() == [
        ("1.0.1", True, None), ("1.0.2", False, "install_failed")]
    attempts = con.execute("SELECT version, ok, client, published_at IS NOT NULL, manifest_digest IS NOT NULL "
                           "FROM attempts ORDER BY version").fetchall()
    assert attempts == [("1.0.1", True, "mcpdelta-crawler/1", True, True),
                        ("1.0.2", False, "mcpdelta-crawler/1", True, False)]
    again = store(lake, *rows_from_folder(str(folder)))  # the same folder twice adds nothing
    assert (again["added"], again["attempts"]) == (0, 0)


def test_a_second_pass_that_disagrees_makes_the_release_unstable(tmp_path):
    first = crawl_folder(tmp_path / "a", [entry("1.0.1"), entry("1.0.2", tools=("a", "b"))])
    second = crawl_folder(tmp_path / "b", [entry("1.0.1", client={"name": "second", "version": "2"}),
                                           entry("1.0.2", tools=("a",), client={"name": "second", "version": "2"})])
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(first)))
    store(lake, [], rows_from_folder(str(second))[1])
    con = lake.connect()
    assert con.execute("SELECT count(*) FROM manifests").fetchone() == (2,)  # pass B adds no contract
    assert con.execute("SELECT version, unstable FROM releases ORDER BY position").fetchall() == [
        ("1.0.1", False), ("1.0.2", True)]


def test_a_step_across_a_version_never_captured_says_how_many(tmp_path):
    log = [entry("1.0.1"), entry("1.0.2", ok=False), entry("1.0.3", tools=("a", "b"))]
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(crawl_folder(tmp_path / "crawl", log))))
    run_diff_stage(lake, Policy(), workers=1)
    con = lake.connect(engine_version(), policy_hash(Policy()))
    assert con.execute("SELECT old_version, new_version, spans, counted FROM release_steps").fetchall() == [
        ("1.0.1", "1.0.3", 1, True)]


def test_pairs_latest_compares_each_release_with_the_newest(tmp_path):
    log = [entry("1.0.1"), entry("1.0.2", tools=("a", "b")), entry("1.0.3", tools=("a", "b")),
           entry("1.0.4", tools=("b",))]
    lake = Lake(str(tmp_path / "lake"))
    store(lake, *rows_from_folder(str(crawl_folder(tmp_path / "crawl", log))))
    stats = run_diff_stage(lake, Policy(), mode="latest", workers=1)
    # 1.0.2 and 1.0.3 share a contract: one pair for both; 1.0.1 is another
    assert (stats["pairs"], stats["errors"]) == (2, 0)
    con = lake.connect(engine_version(), policy_hash(Policy()))
    pairs = con.execute("SELECT old_version, new_version, breaking FROM pairs ORDER BY old_version").fetchall()
    assert pairs == [("1.0.1", "1.0.4", 1), ("1.0.2", "1.0.4", 1)]  # tool a removed either way
    assert count_pairs(lake.connect(), "latest", None, engine_version(), policy_hash(Policy()), None) == (2, 2)
