"""A lake's rows as comparable values: every table a survey writes, without
the columns that say when or in which run a row was written."""

from mcpdelta.lake import Lake
from mcpdelta.lake.tables import TABLES

# when a row was written and by which batch or run: the rest must be equal
VOLATILE = {"captured_at", "attempted_at", "diffed_at", "judged_at", "batch_id", "duration_ms",
            "install_ms", "capture_ms"}
COMPARED = ("manifests", "tools", "probes", "attempts", "pairs", "changes", "notes")


def rows(root: str, tables=COMPARED) -> dict:
    """table -> its rows (tuples of the stable columns), sorted, duplicates kept."""
    con = Lake(root).connect()
    out = {}
    for table in tables:
        columns = [c for c in TABLES[table].names if c not in VOLATILE]
        # all_ views for changes and pairs: what is committed, whatever the engine
        name = f"all_{table}" if table in ("changes", "pairs") else table
        listed = ", ".join(f'"{c}"' for c in columns)
        found = con.execute(f"SELECT {listed} FROM {name}").fetchall()
        out[table] = sorted(found, key=repr)
    con.close()
    return out
