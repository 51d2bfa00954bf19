"""The second front, hostile inputs of the crawl and every YAML reader: a
package name or version that an installer would read as an option or a
registry as a path (both registries; a servers file and a registry answer),
and a key twice in one mapping of each kind of YAML. The cases are
``tests/hostile/attacks.py``'s; ``python -m tests.hostile.run`` prints the
counts of the whole suite."""

import pytest

from tests.hostile import front


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return front.build(tmp_path_factory, items=(10, 11))


def test_a_package_name_or_version_is_data_never_an_option_or_a_path(cases):
    """-r FILE, --index-url=..., ../../etc/x: refused at the load, nothing looked up or run (item 10)."""
    front.check(cases, 10)


def test_a_yaml_key_twice_is_refused_with_its_file_line_and_key(cases):
    """approvals (expires twice, two lists), config, judges, servers, recipes, lockfile, versions (item 11)."""
    front.check(cases, 11)
