"""The second front, hostile strings: one tool name and one server id holding
a terminal escape, a bell, a newline and a workflow command, a Markdown
heading and table-cell break, a script element and matplotlib math, through
every command and every format (diff in its six, digest, lock, verify-lock,
lint-bump, crawl, ci with its summary and SARIF, ingest, survey with
survey.md and survey.html, drift in its four, report, study's README), and
the one-line error of a side or a file name holding a newline. The cases
are ``tests/hostile/attacks.py``'s."""

import pytest

from tests.hostile import front


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return front.build(tmp_path_factory, items=(4, 9))


def test_a_hostile_name_stays_in_its_box_in_every_command_and_format(cases):
    front.check(cases, 4)


@pytest.mark.slow
def test_the_study_writes_a_hostile_folder_up_safely_over_links(cases):
    front.check(cases, 4, slow=True)


def test_an_error_line_stays_one_line(cases):
    """a git: side and a file name holding a newline (item 9)."""
    front.check(cases, 9)
