"""Pack a crawl.sh output folder for the repository: each pass's
``<server-id>/<version>.json`` gzipped (``ingest`` reads ``.json.gz``), its
crawl logs merged (every runner's, in attempt order) and the SDK check's
results merged, each written only when it changed.

    python data/ecosystem/pack.py OUT data/ecosystem            # OUT/a -> captures/, OUT/b -> captures-b/
    python data/ecosystem/pack.py OUT data/ecosystem --plan data/servers/ecosystem.yaml
    python data/ecosystem/pack.py --unpack data/ecosystem OUT   # resume a crawl from the committed data

With ``--plan``, only what the servers file still plans is packed: a
server it no longer lists (excluded since) and a release its version list
no longer names (nor its closing ``>LAST`` selector reaches) leave the
committed data, captures and log rows alike, so the write-up counts the
releases the plan attempts.

OUT holds the first runner's passes as OUT/a and OUT/b and every other
runner's under OUT/runner-K/ (see crawl.sh).
"""

import csv
import gzip
import io
import json
import pathlib
import re
import shutil
import sys

PASSES = {"a": "captures", "b": "captures-b"}
SDK_CHECK = "sdk-check.tsv"


def runner_folders(out: pathlib.Path) -> list:
    return [out] + sorted(p for p in out.glob("runner-*") if p.is_dir())


def _write_if_changed(path: pathlib.Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _key(version: str) -> tuple:
    return tuple(int(n) for n in re.findall(r"[0-9]+", version))


def planned(plan_file):
    """(server id, version) -> is it in the plan? Everything, without a plan."""
    if plan_file is None:
        return lambda server, version: True
    import yaml

    plans = {}
    for server in yaml.safe_load(pathlib.Path(plan_file).read_text(encoding="utf-8"))["servers"]:
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
                target = dest / packed / manifest.parent.name / (manifest.name + ".gz")
                data = gzip.compress(manifest.read_bytes(), compresslevel=9, mtime=0)  # mtime 0: same bytes every run
                written += _write_if_changed(target, data)
            log = source / "crawl-log.jsonl"
            if log.exists():
                rows += [line for line in log.read_text(encoding="utf-8").splitlines()
                         if line.strip() and keep(json.loads(line)["id"], json.loads(line).get("version"))]
        rows.sort(key=lambda line: json.loads(line).get("captured_at") or "")  # stable: a runner's order kept
        if rows:
            _write_if_changed(dest / packed / "crawl-log.jsonl", ("\n".join(rows) + "\n").encode())
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
        done = {json.loads(line)["id"] for line in second.read_text(encoding="utf-8").splitlines() if line.strip()}
    (out / "done").mkdir(parents=True, exist_ok=True)
    for server in done:
        (out / "done" / server).touch()
    for name, packed in PASSES.items():
        for archive in sorted((dest / packed).glob("*/*.json.gz")):
            target = out / name / archive.parent.name / archive.name[: -len(".gz")]
            if archive.parent.name in done and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(gzip.decompress(archive.read_bytes()))
                written += 1
        log = dest / packed / "crawl-log.jsonl"
        if log.exists() and not (out / name / "crawl-log.jsonl").exists():
            rows = [line for line in log.read_text(encoding="utf-8").splitlines()
                    if line.strip() and json.loads(line)["id"] in done]
            (out / name).mkdir(parents=True, exist_ok=True)
            (out / name / "crawl-log.jsonl").write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    if (dest / SDK_CHECK).exists() and not (out / SDK_CHECK).exists():
        shutil.copyfile(dest / SDK_CHECK, out / SDK_CHECK)
    return written


if __name__ == "__main__":
    if sys.argv[1] == "--unpack":
        count = unpack(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
        print(f"{count} capture(s) unpacked into {sys.argv[3]}")
    else:
        plan = sys.argv[sys.argv.index("--plan") + 1] if "--plan" in sys.argv else None
        count = pack(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), plan)
        print(f"{count} capture(s) written under {sys.argv[2]}")
