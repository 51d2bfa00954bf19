"""Files the code reads at run time: the SQL, the demo servers and their
servers files, the rule cases (examples for ``mcpdelta rules RULE``).

The repository's top-level ``sql/`` and ``data/`` folders are the source of
truth; the wheel carries copies of them inside the package
(``mcpdelta/_bundled/``, see pyproject.toml's force-include). A source
checkout (an editable install, or tests run from the tree) has no such copy
and reads the folders in place.
"""

import pathlib

_PACKAGE = pathlib.Path(__file__).resolve().parent
_BUNDLED = _PACKAGE / "_bundled"
_CHECKOUT = _PACKAGE.parent


def _folder(name: str) -> pathlib.Path:
    bundled = _BUNDLED / name
    return bundled if bundled.is_dir() else _CHECKOUT / name


SQL_DIR = _folder("sql")
# the engine's rule cases (small named manifest pairs): `mcpdelta rules RULE` shows one
RULE_CASES = _BUNDLED / "rule_cases" if (_BUNDLED / "rule_cases").is_dir() else _CHECKOUT / "tests" / "engine" / "cases"
DATA_DIR = _folder("data")
DEMO_SERVERS = DATA_DIR / "servers" / "demo.yaml"


def sql(name: str) -> str:
    """The text of ``sql/<name>.sql`` (``name`` may hold a subfolder: ``study/coverage``)."""
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")
