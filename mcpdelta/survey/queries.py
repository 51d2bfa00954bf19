"""Reading a lake for analysis: a connection that shows one engine's and
policy's changes, of some servers (``open_lake``), and the rows of a query
under ``sql/`` as dicts (``query``; any query: ``rows``) or a Polars DataFrame (``frame``). The
survey's report, the study's write-up, the site and the notebooks read the
lake through these."""

import fnmatch

from mcpdelta.resources import SQL_DIR as SQL


def rows(con, sql: str, params=None) -> list:
    """Rows of the query ``sql`` as dicts."""
    cursor = con.execute(sql, params or {})
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row)) for row in cursor.fetchall()]


def query(con, name: str, params=None) -> list:
    """Rows of ``sql/<name>.sql`` as dicts."""
    return rows(con, (SQL / f"{name}.sql").read_text(), params)


def frame(con, name: str, params=None):
    """The result of ``sql/<name>.sql`` as a Polars DataFrame (through Arrow).
    DuckDB's ``sum()`` of integers is a 128-bit integer that arrives as a
    Decimal: whole decimals become Int64, others Float64."""
    import polars as pl

    data = con.sql((SQL / f"{name}.sql").read_text(), params=params or None).pl()
    return data.with_columns(
        pl.col(n).cast(pl.Int64 if t.scale == 0 else pl.Float64)
        for n, t in data.schema.items() if isinstance(t, pl.Decimal))


def open_lake(root, servers=None, engine_version=None, policy_hash=None):
    """A DuckDB connection on the lake at ``root`` for analysis.

    ``changes`` and ``pairs`` show the rows of one engine and policy: the
    ones given, else those of the most recently diffed pair (what the last
    survey reported). ``servers``, a list of ids or glob patterns
    (``"demo-*"``), narrows every per-server table (``manifests``, ``tools``,
    ``changes``, ``pairs``, ...) to the servers it matches; a filter matching nothing is an
    error, not an empty analysis. Every ``sql/`` query then runs unchanged.
    """
    from mcpdelta.lake import Lake

    lake = Lake(str(root))
    lake.require()  # no lake: the CLI's one-line error, not an analysis of empty frames
    con = lake.connect()
    if engine_version is None and policy_hash is None:
        latest = con.execute("SELECT engine_version, policy_hash FROM all_pairs "
                             "ORDER BY diffed_at DESC LIMIT 1").fetchall()
        if latest:
            engine_version, policy_hash = latest[0]
    scope = []
    if engine_version is not None:
        scope.append(f"engine_version = {_literal(engine_version)}")
    if policy_hash is not None:
        scope.append(f"policy_hash = {_literal(policy_hash)}")
    if servers:
        patterns = [servers] if isinstance(servers, str) else list(servers)
        known = [r[0] for r in con.execute(
            "SELECT DISTINCT server_id FROM manifests ORDER BY 1").fetchall()]
        chosen = [s for s in known if any(fnmatch.fnmatchcase(s, p) for p in patterns)]
        if not chosen:
            raise ValueError(f"server filter {patterns} matches none of the lake's servers: {known}")
        in_list = "server_id IN (" + ", ".join(_literal(s) for s in chosen) + ")"
        from mcpdelta.lake.tables import PARTITIONED

        for table in PARTITIONED:  # the tables kept per server; changes and pairs are scoped below
            con.execute(f"ALTER VIEW {table} RENAME TO _lake_{table}")
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM _lake_{table} WHERE {in_list}")
        scope.append(in_list)
    where = (" WHERE " + " AND ".join(scope)) if scope else ""
    for table in ("changes", "pairs"):
        con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM all_{table}{where}")
    return con


def scope_of(con) -> tuple:
    """(engine version, policy hash) of the pairs a connection shows, or
    ("-", "-") when the lake holds none."""
    row = con.execute("SELECT engine_version, policy_hash FROM pairs "
                      "ORDER BY diffed_at DESC LIMIT 1").fetchall()
    return tuple(row[0]) if row else ("-", "-")


def _literal(text) -> str:
    return "'" + str(text).replace("'", "''") + "'"
