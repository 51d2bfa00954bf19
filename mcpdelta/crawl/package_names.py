"""Package names and versions are data: one check of each, per registry.

A servers file is often generated from registry data (the ecosystem's is),
and its names and versions reach an installer's command line and a
registry's URL. So, before anything runs:

    name_problem(registry, name)        why ``name`` is not a package name of
                                        that registry, or None
    version_problem(registry, version)  why ``version`` is not one release's
                                        version there, or None

PyPI: a name as PEP 508 spells one (letters, digits, ``.``, ``_``, ``-``;
a letter or digit at each end), a version as PEP 440 does (``1.0``,
``2.0.0rc1``, ``1!2.0.post1.dev3+local``). npm: a name by npm's rules (at
most 214 characters, each part of ``@scope/name`` URL-safe, none starting
with ``.`` or ``_``; upper case and ``~'!()*`` as old packages have them),
a version as semver (``1.2.3-beta.1+build``, an optional ``v``). Neither
registry's name may start with ``-`` here: no published one does on PyPI,
and on an installer's command line it reads as an option. Selectors
(``latest``, ``last N``, ranges) pick among published versions in mcpdelta
itself and are checked here too (``check_selector``, ``is_selector``).

The installers get ``--`` before their positional arguments and the
registries' URLs are built with quoting as well: the checks here are the
first wall, not the only one.
"""

import re

# PEP 508's name, PEP 440's version (the pattern of its appendix, as
# ``packaging`` has it), semver 2.0 (as npm's ``semver`` reads one)
_PYPI_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_PEP440 = re.compile(r"""
    v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?:alpha|a|beta|b|preview|pre|c|rc)[-_.]?[0-9]*)?
    (?P<post>(?:-[0-9]+)|(?:[-_.]?(?:post|rev|r)[-_.]?[0-9]*))?
    (?P<dev>[-_.]?dev[-_.]?[0-9]*)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
""", re.VERBOSE | re.IGNORECASE)
_NPM_PART = r"[A-Za-z0-9~'!()*][A-Za-z0-9._~'!()*-]*"
_NPM_NAME = re.compile(rf"(?:@{_NPM_PART}/)?{_NPM_PART}")
_NPM_NAME_MAX = 214
_SEMVER = re.compile(r"v?(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)"
                     r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?")


def name_problem(registry: str, name) -> str | None:
    """None when ``name`` is a package name of ``registry``, else why not (one phrase)."""
    if not isinstance(name, str) or not name:
        return "package.name missing"
    if registry == "pypi":
        if not _PYPI_NAME.fullmatch(name):
            return (f"package.name {name!r} is not a PyPI project name (PEP 508: letters, digits, "
                    f"'.', '_' and '-', a letter or digit at each end)")
        return None
    if len(name) > _NPM_NAME_MAX or not _NPM_NAME.fullmatch(name) or name.lower() in ("node_modules",
                                                                                        "favicon.ico"):
        return (f"package.name {name!r} is not an npm package name (URL-safe characters, optionally "
                f"@scope/name, not starting with '.', '_' or '-', at most {_NPM_NAME_MAX} characters)")
    return None


def version_problem(registry: str, version) -> str | None:
    """None when ``version`` can be one release's version on ``registry``, else why not."""
    if not isinstance(version, str) or not version:
        return "a version is empty"
    if registry == "pypi":
        return None if _PEP440.fullmatch(version) else f"{version!r} is not a PEP 440 version"
    return None if _SEMVER.fullmatch(version) else f"{version!r} is not a semver version (npm's)"


# a selector's clause: ">=1.2", "<2", "==0.6.1"
CLAUSE = re.compile(r"^(>=|<=|==|!=|>|<|=)?\s*v?([0-9][0-9A-Za-z.+-]*)$")


def check_selector(selector: str) -> str | None:
    """Why ``selector`` ("latest", "last N", a range) cannot be read, or None."""
    s = selector.strip()
    if s in ("latest", "all") or re.fullmatch(r"last\s+[1-9][0-9]*", s):
        return None
    for clause in filter(None, re.split(r"[,\s]+(?=[<>=!v0-9])", s)):
        if not CLAUSE.match(clause.strip()):
            return f"cannot read {selector!r} (a list, 'latest', 'last N' or a range like '>=0.6')"
    return None


def is_selector(entry: str) -> bool:
    """A list entry that picks versions ("latest", "last N", "> 1.2") rather than naming one."""
    s = entry.strip()
    return s in ("latest", "all") or bool(re.fullmatch(r"last\s+[0-9]+", s)) or (s[:1] != "" and s[:1] in "<>=!")
