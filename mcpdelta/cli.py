"""The ``mcpdelta`` command line.

Each subcommand lives in its own module and is imported only when it runs,
so ``mcpdelta diff`` never pays for the pipeline's heavy imports
(polars, duckdb, prefect, openai, pyarrow).
"""

import argparse
import importlib
import os
import sys

from mcpdelta import __version__
from mcpdelta.errors import InputError, describe_os_error

# name -> (module with add_arguments(parser) and run(args) -> int, help line)
COMMANDS = {
    "diff": ("mcpdelta.commands.diff", "compare two manifests and classify every change"),
    "rules": ("mcpdelta.commands.rules", "print the rule catalog"),
    "digest": ("mcpdelta.commands.digest", "print contract digests of a manifest"),
    "lock": ("mcpdelta.commands.lock", "write a tool-versions lockfile from a manifest"),
    "verify-lock": ("mcpdelta.commands.verify_lock", "compare a manifest to a lockfile; exit 3 on drift"),
    "lint-bump": ("mcpdelta.commands.lint_bump", "fail a release whose version under-bumps its changes"),
    "ci": ("mcpdelta.commands.ci", "capture live servers, compare each with its committed baseline, report for CI"),
    "crawl": ("mcpdelta.commands.crawl", "capture manifests from MCP servers"),
    "ingest": ("mcpdelta.commands.ingest", "import DIR/<server-id>/<version>.json snapshots into a lake"),
    "survey": ("mcpdelta.commands.survey", "crawl, store, diff every version pair, report (the main job)"),
    "report": ("mcpdelta.commands.report", "write the survey report with every plot (single-file HTML) or each plot as a PNG"),
    "study": ("mcpdelta.commands.study", "capture every version twice, survey each release step, write the survey up with its numbers"),
    "site": ("mcpdelta.commands.site", "write the survey as a static site (servers, rules, figures; --data: the dataset as Parquet)"),
    "drift": ("mcpdelta.commands.drift", "report which servers' descriptions and other prose moved, with the judges' notes"),
}

# The exit statuses of every command: the one table --help prints and the
# README repeats.
EXIT_STATUSES = (
    ("0", "below the failure threshold: no change at or above --fail-on, no drift, every capture "
          "and row stored"),
    ("1", "at or above it: a change at or above --fail-on (diff, ci, lint-bump), a failed capture "
          "(crawl), a failed ingest row (ingest), an expired approval --approve cannot renew, "
          "--fail-on-security without a judge's answer"),
    ("2", "bad usage or unreadable input, one line naming the thing and the problem (a missing extra "
          "too); ci: a server it could not check"),
    ("3", "verify-lock: drift (the manifest moved from the lockfile)"),
    ("130", "interrupted (crawl: 128 + the signal that stopped it)"),
)

# the extra that brings each optional top-level package (pyproject.toml)
EXTRAS = {"duckdb": "survey", "pyarrow": "survey", "polars": "survey", "matplotlib": "survey", "jinja2": "survey",
          "mcp": "survey", "pydantic": "survey", "openai": "judges", "prefect": "flows",
          "prefect_dask": "flows", "boto3": "s3", "botocore": "s3"}


def missing_extra(what: str, exc: ModuleNotFoundError) -> str | None:
    """The one line for a missing optional package: the extra that brings it,
    or None when no extra does (a bug, not a missing install)."""
    extra = EXTRAS.get((exc.name or "").partition(".")[0])
    if extra is None:
        return None
    return (f"mcpdelta: error: {what} needs the {extra} extra ({exc.name} is not installed): "
            f"pip install 'mcpdelta[{extra}]'")


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` tells it. Not
    through shutil: argparse would import it (and bz2, lzma, zlib with it)
    for every argument added, a few milliseconds of every run."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog):
        super().__init__(prog, width=_columns() - 2)


class _TableFormatter(_Formatter):
    """Lays out the epilog's "code<TAB>meaning" lines as a table, only when help is shown."""

    def _fill_text(self, text, width, indent):
        import textwrap

        lines = []
        for line in text.splitlines():
            code, _, meaning = line.partition("\t")
            lines.append(textwrap.fill(meaning, max(40, width), initial_indent=f"{indent}  {code:<5}",
                                       subsequent_indent=indent + " " * 7) if meaning else indent + line)
        return "\n".join(lines)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # one line, not argparse's usage block; exit 2
        print(f"mcpdelta: error: {self.prog}: {' '.join(message.split())} (see {self.prog} --help)",
              file=sys.stderr)
        raise SystemExit(2)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that command's parser
    (a dozen unused subparsers cost more than a small diff)."""
    parser = Parser(prog="mcpdelta", description="Contract diffs for MCP servers.",
                     formatter_class=_TableFormatter,
                     epilog="exit status:\n" + "\n".join(f"{code}\t{text}" for code, text in EXIT_STATUSES))
    parser.add_argument("-V", "--version", action="version", version=f"mcpdelta {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (module, help_line) in COMMANDS.items():
        if only in (None, name):
            sub.add_parser(name, help=help_line, description=help_line)
    return parser


# Commands that have written and closed all they write, and left no thread or
# child process, when they return: the console script ends them at once.
ENDS_AT_ONCE = frozenset(("diff", "digest", "rules", "verify-lock"))


def command_name(argv) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def console() -> None:
    """The console script: ``main``, then, for a command of ``ENDS_AT_ONCE``,
    the process ends without the interpreter freeing its heap object by
    object. That teardown (every module, jsonschema-rs's, the email and typing
    machinery it loads, the diff's own objects) is about a sixth of the CPU
    of ``mcpdelta diff`` on a 25-tool pair. Output is flushed first; a flush
    that fails, or a thread still running, takes the interpreter's own exit."""
    code = main()
    threading = sys.modules.get("threading")  # never imported: no thread was started
    alone = threading is None or threading.active_count() == 1
    if alone and command_name(sys.argv[1:]) in ENDS_AT_ONCE:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a closed pipe: Python's exit says so, as it always did
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # a lone surrogate from a manifest prints as its JSON escape, not a crash
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    # Parse the command name first, then let that command's module add its
    # own arguments: only the chosen command's module is imported.
    name = command_name(argv)
    parser = build_parser(name if name in COMMANDS else None)
    try:
        if name in COMMANDS:
            module = importlib.import_module(COMMANDS[name][0])
            module.add_arguments(parser._subparsers._group_actions[0].choices[name])
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        return module.run(args)
    except ModuleNotFoundError as exc:
        line = missing_extra(f"`mcpdelta {name}`", exc)
        if line is None:
            raise
        print(line, file=sys.stderr)
        return 2
    except InputError as exc:  # one line, whatever the name or the text it quotes holds
        from mcpdelta.safe import visible

        print(f"mcpdelta: error: {visible(exc)}", file=sys.stderr)
        return 2
    except RecursionError:  # an input nested past what any bound of the engine foresaw
        print("mcpdelta: error: an input nests too deeply to compare (past Python's recursion limit)",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system refused (full, read-only): a line, not a traceback
        from mcpdelta.safe import visible

        print(f"mcpdelta: error: {visible(describe_os_error(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mcpdelta: interrupted", file=sys.stderr)
        return 130
