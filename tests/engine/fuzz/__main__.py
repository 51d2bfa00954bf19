"""``python -m tests.engine.fuzz --pairs 50000 --seed 7 [--json FILE]``: the long run."""

import argparse
import json
import sys

from tests.engine.fuzz.runner import run, summary
from tests.engine.fuzz.seeds import load_seeds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.engine.fuzz",
                                     description="mutation fuzzer of the engine's schema verdicts")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--values", type=int, default=15, help="values drawn per side (default: 15)")
    parser.add_argument("--max-schema-chars", type=int, default=None,
                        help="only seeds at most this long as canonical JSON")
    parser.add_argument("--shown", type=int, default=40, help="disagreements printed in full")
    parser.add_argument("--json", metavar="FILE", help="write the counts and every disagreement here")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.values < 1:
        print("fuzz: --pairs and --values must be at least 1", file=sys.stderr)
        return 2
    try:  # opened first: a path that cannot be written is said before the run, not after
        out = open(args.json, "w", encoding="utf-8") if args.json else None
    except OSError as exc:
        print(f"fuzz: {args.json}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    report = run(load_seeds(), args.pairs, args.seed, args.values, args.max_schema_chars,
                 progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(summary(report, args.shown))
    if out:
        with out:
            json.dump(report.as_json(), out, indent=1, sort_keys=True, default=repr)
    return 1 if report.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
