"""The README's quick start, run as written: its first 40 lines hold every
command a newcomer needs, each one works from a fresh clone's layout, and
the output it shows is what the diff prints."""

import os
import re
import shlex
import shutil
import subprocess

from tests.conftest import ROOT, _console_script

QUICK_START_LINES = 40
INSTALL_AND_SURVEY = "python3 -m venv .venv && .venv/bin/pip install '.[survey]' && .venv/bin/mcpdelta survey"
TESTS = "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest"


def _blocks(text: str, kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", text, re.S)


def test_the_readme_is_short_and_starts_with_the_quick_start():
    readme = (ROOT / "README.md").read_text()
    assert readme.count("\n") < 400
    head = "\n".join(readme.split("\n")[:QUICK_START_LINES])
    assert head.count("```") % 2 == 0, "a code block of the quick start runs past its 40 lines"
    commands = [line for block in _blocks(head, "sh") for line in block.splitlines()]
    # the two commands a newcomer needs: install and run the main job, run the tests
    assert INSTALL_AND_SURVEY in commands and TESTS in commands
    for verb in ("crawl", "diff", "ci"):
        assert any(line.startswith(f".venv/bin/mcpdelta {verb} ") for line in commands), verb
    assert _blocks(head, "text"), "the quick start shows the diff's output"


def test_the_quick_starts_servers_file_is_one_the_crawler_reads(tmp_path):
    from mcpdelta.crawl.servers import load

    head = "\n".join((ROOT / "README.md").read_text().split("\n")[:QUICK_START_LINES])
    [example] = _blocks(head, "yaml")
    (tmp_path / "servers.yaml").write_text(example)
    targets, _ = load(str(tmp_path / "servers.yaml"))
    assert [(t.id, t.transport) for t in targets] == [("my-server", "stdio"), ("my-remote", "streamable-http")]


def test_the_quick_start_runs_as_written(tmp_path):
    """Every ``mcpdelta`` line and shell step before the main job, in a
    folder laid out as a clone (the demo servers and their servers file):
    each exits as the text says, and each line of the output shown is
    printed, in that order."""
    head = "\n".join((ROOT / "README.md").read_text().split("\n")[:QUICK_START_LINES])
    for folder in ("servers", "demo"):
        shutil.copytree(ROOT / "data" / folder, tmp_path / "data" / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shown = _blocks(head, "text")[0].splitlines()
    env = {**os.environ, "HOME": str(tmp_path)}
    ran = []
    for line in (line for block in _blocks(head, "sh") for line in block.splitlines()):
        command = line.split("  #", 1)[0].strip()
        if not command or command.startswith("#") or command.startswith("python3 -m venv"):
            continue  # comments; the installs are test_installed.py's (a regular install of the wheel)
        if not command.startswith(".venv/bin/mcpdelta "):
            done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, (command, done.stderr)
            continue
        argv = [_console_script(), *shlex.split(command)[1:]]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        verb = argv[1]
        ran.append(verb)
        assert "Traceback" not in done.stderr, done.stderr
        if verb == "crawl":
            assert done.returncode == 0, done.stderr
        elif verb == "diff":
            assert done.returncode == 1, done.stderr  # a break: the build fails
            printed = done.stdout.splitlines()
            at = 0
            for expected in shown:
                assert expected in printed[at:], f"shown but not printed (in order): {expected!r}"
                at = printed.index(expected, at) + 1
        elif verb == "ci":
            assert done.returncode == 1 and "5 BREAKING" in done.stdout, done.stderr  # "exit 1 on a break"
            assert "mcpdelta ci: 1 server; fail; grade major" in done.stdout  # one server, not "server(s)"
    assert ran == ["crawl", "diff", "ci"]
