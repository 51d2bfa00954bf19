"""Pack a capture folder (``mcpdelta/survey/passes.py``) for the repository: each pass's
``<server-id>/<version>.json`` gzipped (``ingest`` reads ``.json.gz``), its
crawl logs merged (every runner's, in attempt order) and the SDK check's
results merged, each written only when it changed.

    python -m mcpdelta.survey.pack OUT data/ecosystem            # OUT/a -> captures/, OUT/b -> captures-b/
    python -m mcpdelta.survey.pack OUT data/ecosystem --plan data/servers/ecosystem.yaml
    python -m mcpdelta.survey.pack --unpack data/ecosystem OUT   # resume a crawl from the committed data

With ``--plan``, only what the servers file still plans is packed: a
server it no longer lists (excluded since) and a release its version list
no longer names (nor its closing ``>LAST`` selector reaches) leave the
committed data, captures and log rows alike, so the write-up counts the
releases the plan attempts.

OUT holds the first runner's passes as OUT/a and OUT/b and every other
runner's under OUT/runner-K/ (earlier crawls ran several runners).

The folders and logs read are data someone else may have written: every
crawl-log id becomes a path only through ``mcpdelta.names`` (``../x`` is
refused), every log line is decoded bounded (a line that is not a log entry
is one line of error, exit 2), every archive is read whole
(``mcpdelta.inputs.gunzip``) and every file written through
``mcpdelta.files``.
"""

import csv
import gzip
import io
import pathlib
import re
import sys

from mcpdelta.errors import InputError
from mcpdelta.files import make_folder, write_file
from mcpdelta.inputs import gunzip, load_json, load_yaml, read_bytes, read_text
from mcpdelta.names import file_name, path_in

PASSES = {"a": "captures", "b": "captures-b"}
SDK_CHECK = "sdk-check.tsv"


def runner_folders(out: pathlib.Path) -> list:
    return [out] + sorted(p for p in out.glob("runner-*") if p.is_dir())


def _write_if_changed(path: pathlib.Path, data: bytes) -> bool:
    if path.is_file() and not path.is_symlink() and path.read_bytes() == data:
        return False
    make_folder(path.parent.parent, path.parent.name)
    write_file(path, data)
    return True


def log_rows(path: pathlib.Path) -> list:
    """(line, entry) for every line of a crawl log; ``InputError`` naming the
    file and line for one that is not a crawl-log entry with a string id."""
    rows = []
    for number, line in enumerate(read_bytes(path, what="crawl log").decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        entry = load_json(line, f"{path}:{number}")
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise InputError(f"{path}:{number}", "not a crawl-log entry (an object with a string id)")
        rows.append((line, entry))
    return rows


def _key(version: str) -> tuple:
    return tuple(int(n) for n in re.findall(r"[0-9]+", version))


def planned(plan_file):
    """(server id, version) -> is it in the plan? Everything, without a plan."""
    if plan_file is None:
        return lambda server, version: True
    plans = {}
    for server in load_yaml(read_text(plan_file), str(plan_file))["servers"]:
        versions = (server.get("package") or {}).get("versions")
        plans[server["id"]] = versions if isinstance(versions, list) else None

    def check(server, version):
        if server not in plans:
            return False
        versions = plans[server]
        if versions is None or version is None or version in map(str, versions):  # None: a failed look-up
            return True
        listed = [str(v) for v in versions if not str(v).startswith(">")]
        after = [str(v)[1:] for v in versions if str(v).startswith(">")]  # '>LAST': what came since
        return bool(after and listed and _key(version) > _key(after[-1]))
    return check


def pack(out: pathlib.Path, dest: pathlib.Path, plan_file=None) -> int:
    written = 0
    keep = planned(plan_file)
    for name, packed in PASSES.items():
        rows = []
        if plan_file is not None:  # what the plan dropped leaves the committed data
            for archive in sorted((dest / packed).glob("*/*.json.gz")):
                if not keep(archive.parent.name, archive.name[: -len(".json.gz")]):
                    archive.unlink()
                    written += 1
        for folder in runner_folders(out):
            source = folder / name
            for manifest in sorted(source.glob("*/*.json")):
                if not keep(manifest.parent.name, manifest.name[: -len(".json")]):
                    continue
                target = pathlib.Path(path_in(path_in(dest / packed, manifest.parent.name, what="server folder"),
                                              manifest.name, ".gz", what="capture"))
                data = gzip.compress(read_bytes(manifest, what="capture"), compresslevel=9, mtime=0)  # mtime 0: same bytes every run
                written += _write_if_changed(target, data)
            log = source / "crawl-log.jsonl"
            if log.exists():
                rows += [(line, entry) for line, entry in log_rows(log) if keep(entry["id"], entry.get("version"))]
        rows.sort(key=lambda row: str(row[1].get("captured_at") or ""))  # stable: a runner's order kept
        if rows:
            _write_if_changed(dest / packed / "crawl-log.jsonl", ("\n".join(line for line, _ in rows) + "\n").encode())
    checks, header = {}, None
    for folder in runner_folders(out):
        path = folder / SDK_CHECK
        if path.exists():
            reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")), delimiter="\t")
            header = reader.fieldnames
            checks.update({row["server_id"]: row for row in reader if keep(row["server_id"], row["version"])})
    if header:
        text = io.StringIO()
        table = csv.DictWriter(text, header, delimiter="\t", lineterminator="\n")
        table.writeheader()
        table.writerows(checks[k] for k in sorted(checks))
        _write_if_changed(dest / SDK_CHECK, text.getvalue().encode())
    return written


def unpack(dest: pathlib.Path, out: pathlib.Path) -> int:
    """The committed captures back as the first runner's folders, so a crawl
    over them skips every release already captured, and every server the
    second pass has tried marked done (the second pass runs only after the
    first has finished a server). A server the second pass never tried
    comes back with nothing: its first pass's installs are gone, so the
    resumed crawl runs both passes for it again, its old log rows dropped."""
    written, done = 0, set()
    second = dest / PASSES["b"] / "crawl-log.jsonl"
    if second.exists():
        done = {entry["id"] for _, entry in log_rows(second)}
    marks = make_folder(out, "done")
    for server in sorted(done):
        write_file(path_in(marks, server, what="crawl-log id"), b"")  # ``../x`` is refused, not followed
    for name, packed in PASSES.items():
        for archive in sorted((dest / packed).glob("*/*.json.gz")):
            server = file_name(archive.parent.name, "server folder")
            target = pathlib.Path(path_in(out / name / server, archive.name[: -len(".gz")], what="capture"))
            if server in done and not target.exists():
                make_folder(out, name, server)
                write_file(target, gunzip(read_bytes(archive, what="capture"), str(archive)))
                written += 1
        log = dest / packed / "crawl-log.jsonl"
        if log.exists() and not (out / name / "crawl-log.jsonl").exists():
            rows = [line for line, entry in log_rows(log) if entry["id"] in done]
            make_folder(out, name)
            write_file(out / name / "crawl-log.jsonl", "".join(row + "\n" for row in rows))
    if (dest / SDK_CHECK).exists() and not (out / SDK_CHECK).exists():
        write_file(out / SDK_CHECK, read_bytes(dest / SDK_CHECK, what="SDK check"))
    return written


def main(argv) -> int:
    from mcpdelta.safe import visible

    try:
        if argv[0] == "--unpack":
            count = unpack(pathlib.Path(argv[1]), pathlib.Path(argv[2]))
            print(f"{count} capture(s) unpacked into {argv[2]}")
        else:
            plan = argv[argv.index("--plan") + 1] if "--plan" in argv else None
            count = pack(pathlib.Path(argv[0]), pathlib.Path(argv[1]), plan)
            print(f"{count} capture(s) written under {argv[1]}")
    except (InputError, OSError) as exc:
        print(f"mcpdelta.survey.pack: error: {visible(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
