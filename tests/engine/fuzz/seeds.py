"""The seeds: every distinct real tool input and output schema in ``data/``."""

import gzip
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
# captured manifests, by corpus; data/fresh is read when it is there
CORPORA = ("data/ecosystem/captures", "data/ecosystem/captures-b", "data/survey/captures",
           "data/samples", "data/fresh/captures")
MAX_FILE_BYTES = 8 << 20  # a capture larger than this is not a seed worth its parse


class Seed:
    """One distinct schema: its side (``input`` / ``output``), the schema, and
    where it was first seen (``file#tool``)."""

    __slots__ = ("side", "schema", "origin")

    def __init__(self, side, schema, origin):
        self.side, self.schema, self.origin = side, schema, origin


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _manifests(root: pathlib.Path):
    for corpus in CORPORA:
        base = root / corpus
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in (".json", ".gz") or not path.is_file():
                continue
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                raw = gzip.open(path).read(MAX_FILE_BYTES + 1) if path.suffix == ".gz" else path.read_bytes()
                doc = json.loads(raw)
            except (OSError, ValueError, EOFError):
                continue
            if isinstance(doc, dict) and isinstance(doc.get("tools"), list):
                yield str(path.relative_to(root)), doc


def load_seeds(root: pathlib.Path = ROOT) -> list:
    """Distinct (by side and canonical JSON) object schemas, in a stable order."""
    seen, seeds = set(), []
    for where, doc in _manifests(root):
        for tool in doc["tools"]:
            if not isinstance(tool, dict):
                continue
            for side, key in (("input", "inputSchema"), ("output", "outputSchema")):
                schema = tool.get(key)
                if not isinstance(schema, dict) or not schema:
                    continue
                text = canonical(schema)
                if (side, text) in seen:
                    continue
                seen.add((side, text))
                seeds.append(Seed(side, schema, f"{where}#{tool.get('name')}"))
    seeds.sort(key=lambda s: (s.side, canonical(s.schema)))
    return seeds
