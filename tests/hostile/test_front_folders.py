"""The second front, hostile folders: a symbolic link left where each writer
writes (the lake's lock, a report's temporary and final names, a PNG, the
crawl log, a capture folder, a baseline, ``diff --output``; the study's
README in ``test_front_strings.py``), ids that climb out of their folder,
and gzip files whole or not at all. The cases are ``tests/hostile/attacks.py``'s."""

import pytest

from tests.hostile import front


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return front.build(tmp_path_factory, items=(2, 3, 5))


def test_no_writer_follows_a_symbolic_link(cases):
    """each link's target is untouched; a lock, log or capture folder link is refused (item 2)."""
    front.check(cases, 2)


def test_an_id_never_becomes_a_path_outside_its_folder(cases):
    """ci baselines, crawl outputs, pack.py --unpack (item 3)."""
    front.check(cases, 3)


def test_gzip_is_read_whole_or_refused(cases):
    """no trailer, a wrong CRC, trailing bytes, two members (item 5)."""
    front.check(cases, 5)
