"""A second capture of each server's latest captured release with the
official ``mcp`` SDK client, compared with the crawler's: tool names and
input schemas. The ecosystem write-up's method section reads the result.

    python bench/sdk_check.py SERVERS CAPTURES RESULT.tsv [--cache DIR] [--only ID ... | --missing]

CAPTURES is the crawler's pass-A folder (``<id>/<version>.json`` or
``.json.gz``, and its ``crawl-log.jsonl``). Each server's latest captured
version is installed again from the package cache (the same install
options, so the same folder when it is still there) and started under the
same recipe (arguments, dummy environment, working folder, a fresh HOME).
RESULT.tsv holds one row per server; rows of servers not checked this run
are kept, so the script can run server by server beside a crawl.
"""

import argparse
import asyncio
import csv
import gzip
import json
import os
import pathlib
import shutil
import sys
import tempfile

COLUMNS = ("server_id", "version", "crawler_tools", "sdk_tools", "names_match", "schemas_match",
           "sdk_protocol", "difference")
TIMEOUT_S = 120


def captured_versions(folder: pathlib.Path) -> dict:
    """{server id: {version: (manifest, published_at)}} of the good captures."""
    published = {}
    log = folder / "crawl-log.jsonl"
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("ok"):
                published[(row["id"], row["version"])] = row.get("published_at")
    found: dict = {}
    for path in sorted(folder.glob("*/*.json*")):
        if path.suffix not in (".json", ".gz"):
            continue
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        version = path.name.removesuffix(".gz").removesuffix(".json")
        manifest = json.loads(data)
        if lists_no_tools(manifest):  # no capture: the study counts it failed (empty)
            continue
        found.setdefault(path.parent.name, {})[version] = (manifest, published.get((path.parent.name, version)))
    return found


def compare(ours: list, theirs: list) -> tuple[bool | None, bool | None, str]:
    """(names match, input schemas match, what differs) of two tool lists;
    (None, None, why) when either lists no tools: an empty list compares
    nothing, so it is never a match."""
    if not ours or not theirs:
        side = "neither client" if not ours and not theirs else "the crawler" if not ours else "the SDK client"
        return None, None, f"not checked: {side} listed {'any' if side == 'neither client' else 'no'} tools"
    mine = {t["name"]: t.get("inputSchema") for t in ours}
    sdk = {t["name"]: t.get("inputSchema") for t in theirs}
    notes = []
    if set(mine) - set(sdk):
        notes.append("only the crawler lists " + ", ".join(sorted(set(mine) - set(sdk))))
    if set(sdk) - set(mine):
        notes.append("only the SDK lists " + ", ".join(sorted(set(sdk) - set(mine))))
    differ = sorted(n for n in set(mine) & set(sdk)
                    if json.dumps(mine[n], sort_keys=True) != json.dumps(sdk[n], sort_keys=True))
    if differ:
        notes.append("input schemas differ: " + ", ".join(differ))
    return set(mine) == set(sdk), not differ and set(mine) == set(sdk), "; ".join(notes)


async def sdk_tools(command: str, args: list, env: dict, cwd) -> tuple[list, str]:
    """Every page of tools/list through the SDK's own stdio client."""
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=60) as session:
                init = await session.initialize()
                tools, cursor = [], None
                for _ in range(1000):  # bounded: a server that pages forever stops here
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await session.list_tools(params=params)
                    tools.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                return tools, str(init.protocol_version)


def lists_no_tools(manifest) -> bool:
    from mcpdelta.crawl.runner import lists_no_tools as empty

    return empty(manifest)


async def check(target, version, published_at, manifest, cache) -> dict:
    from mcpdelta.crawl.packages import runtime_env
    from mcpdelta.crawl.runner import isolated_env
    from mcpdelta.crawl.servers import expand

    row = {"server_id": target.id, "version": version,
           "crawler_tools": len(manifest.get("tools") or [])}
    home = pathlib.Path(tempfile.mkdtemp(prefix="mcpdelta-sdk-home-"))
    try:
        info = await cache.install(target.package.registry, target.package.name, version, published_at,
                                   target.package.bin, python=target.package.python, node=target.package.node)
        env = {**os.environ, **isolated_env(home), **runtime_env(info),
               **{k: expand(v, set()) for k, v in target.env.items()}}
        tools, protocol = await asyncio.wait_for(
            sdk_tools(info["argv"][0], info["argv"][1:] + list(target.args), env, target.cwd), TIMEOUT_S)
    except BaseException as exc:  # the SDK's task groups raise groups; one line either way
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        message = str(getattr(exc, "message", "") or exc).splitlines()[0][:300] if str(exc) else ""
        return {**row, "sdk_tools": "", "names_match": "", "schemas_match": "", "sdk_protocol": "",
                "difference": f"the SDK client failed: {type(exc).__name__}: {message}".rstrip(": ")}
    finally:
        shutil.rmtree(home, ignore_errors=True)
    names, schemas, difference = compare(manifest.get("tools") or [], tools)
    flag = {True: "true", False: "false", None: ""}  # "": not checked
    return {**row, "sdk_tools": len(tools), "names_match": flag[names],
            "schemas_match": flag[schemas], "sdk_protocol": protocol, "difference": difference}


def read_result(path: pathlib.Path) -> dict:
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {row["server_id"]: row for row in csv.DictReader(f, delimiter="\t")}


def write_result(path: pathlib.Path, rows: dict) -> None:
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n")
        out.writeheader()
        for key in sorted(rows):
            out.writerow({c: rows[key].get(c, "") for c in COLUMNS})
    os.replace(temporary, path)


async def main(argv=None) -> int:
    from mcpdelta.crawl.packages import PackageCache, default_cache, version_key
    from mcpdelta.crawl.servers import load, read_ids

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("servers")
    parser.add_argument("captures", type=pathlib.Path)
    parser.add_argument("result", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path, default=None)
    parser.add_argument("--only", nargs="+", default=None)
    parser.add_argument("--only-from", metavar="FILE", help="the ids FILE lists, one a line, as --only")
    parser.add_argument("--missing", action="store_true", help="only servers RESULT.tsv has no row for")
    args = parser.parse_args(argv)
    if args.only_from:
        args.only = [*(args.only or ()), *read_ids(args.only_from)]
    targets, limits = load(args.servers)
    cache = PackageCache(args.cache or default_cache(), limits.install_timeout_s)
    captured = captured_versions(args.captures)
    rows = read_result(args.result)
    for target in targets:
        if target.package is None or (args.only and target.id not in args.only) \
                or (args.missing and target.id in rows):
            continue
        versions = captured.get(target.id)
        if not versions:
            continue
        version = max(versions, key=version_key)
        manifest, published_at = versions[version]
        rows[target.id] = await check(target, version, published_at, manifest, cache)
        r = rows[target.id]
        print(f"{target.id} {version}: crawler {r['crawler_tools']} tools, SDK {r['sdk_tools'] or '-'}"
              f"{'; ' + r['difference'] if r['difference'] else ''}", file=sys.stderr)
        write_result(args.result, rows)  # after each server: an interrupted run keeps what it checked
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
