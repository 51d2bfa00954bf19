"""A stdio MCP server that exits at start until its environment variables are set.

    python needs_env.py [--starts FILE] [--crash MESSAGE] [--all] NAME...

Checks each NAME in turn and exits (status 1) on the first unset one with
"Error: NAME environment variable is required", as many published servers
do; with ``--all`` it names every unset one in one line. A NAME ending in
``_URL`` must hold an http(s) URL with a host ("Error: NAME is not a valid
URL" otherwise). ``--crash MESSAGE`` then exits with MESSAGE on stderr.
Otherwise it serves as ``fault_stdio.py ok`` does. ``--starts FILE`` gets
one line per start: the NAMEs and the values it found.
"""

import argparse
import json
import os
import sys
from urllib.parse import urlsplit

from fault_stdio import handle


def fail(message: str) -> None:
    sys.stderr.write("Starting server...\n" + message + "\n")
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts")
    parser.add_argument("--crash")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("names", nargs="*")
    opts = parser.parse_args()
    if opts.starts:
        with open(opts.starts, "a") as fh:
            fh.write(json.dumps({n: os.environ.get(n) for n in opts.names}) + "\n")
    unset = [n for n in opts.names if not os.environ.get(n)]
    if unset and opts.all:
        fail(f"Missing required environment variables: {', '.join(unset)}")
    for name in opts.names:
        value = os.environ.get(name)
        if not value:
            fail(f"Error: {name} environment variable is required")
        url = urlsplit(value)
        if name.endswith("_URL") and not (url.scheme in ("http", "https") and url.hostname):
            fail(f"Error: {name} is not a valid URL: {value!r}")
    if opts.crash:
        fail(opts.crash)
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
