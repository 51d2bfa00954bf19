"""What the ``test_front_*.py`` files share: the second front's cases of some
items, built once per file, and one test's check of one item."""

from tests.hostile import attacks
from tests.hostile.run import failures, run_attack


def build(tmp_path_factory, items):
    folder = tmp_path_factory.mktemp("front")
    return folder, attacks.build(folder, items=items)


def check(front, item, slow=False):
    """Every case of ``item`` (its slow ones, or the others) in a real process:
    each ends as it must, leaves what is outside its target alone and writes
    nothing raw. The message names each case and what went wrong."""
    folder, cases = front
    chosen = [c for c in cases if c.item == item and c.slow == slow]
    assert chosen, f"no case of item {item}"
    wrong = [f"{case.name}: {problem}" for case in chosen for problem in failures(run_attack(case, folder))]
    assert wrong == [], "\n".join(wrong)
