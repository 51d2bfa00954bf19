"""Pack a crawl's output folder for the repository: each
``<server-id>/<version>.json`` gzipped (``ingest`` reads ``.json.gz``), the
crawl log copied, both written only when they changed.

    python data/ecosystem/pack.py CRAWL_OUT DEST
    python data/ecosystem/pack.py --unpack DEST CRAWL_OUT   # resume a crawl from the committed captures
"""

import gzip
import pathlib
import shutil
import sys


def pack(source: pathlib.Path, dest: pathlib.Path) -> int:
    written = 0
    for manifest in sorted(source.glob("*/*.json")):
        target = dest / manifest.parent.name / (manifest.name + ".gz")
        data = gzip.compress(manifest.read_bytes(), compresslevel=9, mtime=0)  # mtime 0: same bytes every run
        if target.exists() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    log = source / "crawl-log.jsonl"
    if log.exists():
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, dest / "crawl-log.jsonl")
    return written


def unpack(packed: pathlib.Path, out: pathlib.Path) -> int:
    """The committed captures back as a crawl's --out folder, so a crawl over
    it skips every release already captured."""
    written = 0
    for archive in sorted(packed.glob("*/*.json.gz")):
        target = out / archive.parent.name / archive.name[: -len(".gz")]
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(gzip.decompress(archive.read_bytes()))
            written += 1
    log = packed / "crawl-log.jsonl"
    if log.exists() and not (out / "crawl-log.jsonl").exists():
        shutil.copyfile(log, out / "crawl-log.jsonl")
    return written


if __name__ == "__main__":
    if sys.argv[1] == "--unpack":
        count = unpack(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
        print(f"{count} capture(s) unpacked into {sys.argv[3]}")
    else:
        count = pack(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
        print(f"{count} capture(s) written to {sys.argv[2]}")
