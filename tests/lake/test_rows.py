"""Rows in and out of the lake: tuples in a table's column order write the
same files as dicts, and columns read as dictionaries give the same values
with each distinct text one object."""

import pyarrow as pa

from mcpdelta.lake import Lake, texts
from mcpdelta.lake.tables import TABLES


def _tools():
    return [{"server_id": s, "manifest_digest": f"d{v}", "name": n, "tool_hash": f"h{v}{n}",
             "tool_json": '{"name": "%s"}' % n if v < 2 else '{"name": "%s", "v": 2}' % n}
            for s in ("a", "b") for v in range(3) for n in ("x", "y")]


def _as_tuples(rows, table):
    return [tuple(row[name] for name in TABLES[table].names) for row in rows]


def test_tuples_write_what_dicts_write(tmp_path):
    by_dict, by_tuple = Lake(str(tmp_path / "dicts")), Lake(str(tmp_path / "tuples"))
    ledger = [{"pair_key": "k1", "server_id": "a", "old_version": "1", "new_version": "2",
               "old_digest": "d1", "new_digest": "d2", "engine_version": "e", "policy_hash": "p",
               "batch_id": "b", "changes": 1, "breaking": 0, "grade": "patch", "witnessed": 0,
               "error": None, "diffed_at": None}]
    for table, rows in (("tools", _tools()), ("pairs", ledger)):  # partitioned, then not
        written = by_dict.append(table, rows, "b")
        assert by_tuple.append(table, _as_tuples(rows, table), "b") == [
            p.replace(str(tmp_path / "dicts"), str(tmp_path / "tuples")) for p in written]
        servers = sorted({r["server_id"] for r in rows})
        assert by_tuple.read_servers(table, servers).to_pylist() == \
            by_dict.read_servers(table, servers).to_pylist() == sorted(
                rows, key=lambda r: r["server_id"])


def test_dictionary_columns_read_the_same_values_once_each(tmp_path):
    lake = Lake(str(tmp_path / "lake"))
    lake.append("tools", _tools(), "b")
    columns = ["server_id", "name", "tool_json"]
    plain = lake.read_servers("tools", ["a", "b"], columns)
    coded = lake.read_servers("tools", ["a", "b"], columns, dictionary=("tool_json", "name"))
    assert pa.types.is_dictionary(coded.schema.field("tool_json").type)
    for name in columns:
        assert texts(coded[name]) == plain[name].to_pylist()
    found = texts(coded["tool_json"])
    # server a's first two releases hold one text for tool x: one object
    assert found[0] == found[2] and found[0] is found[2]
    # each server's file: tools x and y, each in two texts
    assert len({id(t) for t in found}) == len(set(zip(plain["server_id"].to_pylist(), found))) == 8


def test_a_file_with_its_columns_in_another_order_is_read_by_name(tmp_path):
    """A tools file written (by another writer) with the table's columns in
    another order, beside one in order: the connection binds the first and
    matches the other's columns by name, not by position."""
    import pyarrow.parquet as pq

    lake = Lake(str(tmp_path / "lake"))
    rows = _tools()
    lake.append("tools", [r for r in rows if r["server_id"] == "a"], "b1")
    shuffled = pa.Table.from_pylist([r for r in rows if r["server_id"] == "b"], TABLES["tools"])
    shuffled = shuffled.select(list(reversed(shuffled.column_names)))
    pq.write_table(shuffled, f"{lake.folder('tools')}/part-b2.parquet")
    found = lake.connect(tables=("tools",)).execute(
        "SELECT server_id, manifest_digest, name, tool_hash, tool_json FROM tools "
        "ORDER BY server_id, manifest_digest, name").fetchall()
    assert found == sorted((r["server_id"], r["manifest_digest"], r["name"], r["tool_hash"],
                            r["tool_json"]) for r in rows)
