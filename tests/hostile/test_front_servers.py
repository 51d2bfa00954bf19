"""The second front, hostile servers: on stdio (a line of 100,000 ``[`` as an
answer, a banner or a probe result; tools annotated destructive; a grandchild
that double-forks, calls setsid and clears its environment) and on 127.0.0.1
(a judge endpoint that drips, answers 100 MB, or answers 100,000 ``[``).
The cases are ``tests/hostile/attacks.py``'s; ``python -m tests.hostile.run``
prints the counts of the whole suite."""

import pytest

from tests.hostile import front


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return front.build(tmp_path_factory, items=(1, 6, 7, 8))


def test_untrusted_json_is_decoded_bounded_and_a_server_fails_alone(cases):
    """crawl, survey, ci, diff live:, verify-lock --servers; files and crawl logs (item 1)."""
    front.check(cases, 1)


def test_a_probe_never_calls_a_destructive_tool_unless_told(cases):
    """and, from a lockfile, not a tool not annotated read-only either (item 6)."""
    front.check(cases, 6)


def test_a_judge_has_one_deadline_and_a_byte_cap(cases):
    """a drip, 100 MB and a deep answer each end as a judge_error note (item 7)."""
    front.check(cases, 7)


def test_every_process_of_a_server_ends_however_it_detaches(cases):
    """a cgroup here, and the recorded scan of descendants (item 8)."""
    front.check(cases, 8)
