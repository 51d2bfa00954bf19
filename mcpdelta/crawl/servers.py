"""Servers files: our ``servers.yaml`` and the MCP registry's ``server.json``.

``servers.yaml`` layout (CONTRACT.md "Which servers"), with two additions::

    servers:
      - id: local-notes                  # unique; [A-Za-z0-9._@-], "/" becomes "__"
        transport: stdio                 # default: stdio, or streamable-http when url is set
        command: python                  # "{python}" = the interpreter running mcpdelta
        args: ["-m", "notes_server"]
        env: {NOTES_TOKEN: "${NOTES_TOKEN}"}   # ${VAR} read from the environment at crawl time
        cwd: .                           # default: the servers file's folder (an installed
                                         # package's: its capture's own empty folder); "${VAR}/x" allowed
      - id: demo-notes                   # a local multi-version server:
        command: "{python}"              # one capture per listed version, with
        args: ["../demo/notes_server.py", "--version", "{version}"]   # {version} substituted
        versions: ["1.0.0", "1.1.0"]     # in command, args, env, url and headers
      - id: acme-remote
        transport: streamable-http       # or sse (the 2024-11-05 HTTP+SSE transport)
        url: https://mcp.acme.example/mcp
        headers: {Authorization: "Bearer ${ACME_TOKEN}"}
      - id: memory
        package: {registry: npm, name: "@modelcontextprotocol/server-memory",
                  versions: ["0.6.0", "2025.4.25"], bin: null}   # or "last 5", ">=0.6", "latest"
                                               # (a list may end in one: ["0.6.0", "> 0.6.0"])
        args: []                         # arguments after the package's executable
        node: "22"                       # npm: run with this Node.js major (the machine's
                                         # when it is that one, else fetched from npm once)
        serial: true                     # its versions captured one at a time (default
                                         # false): for a server that holds a fixed port
        tool_set: "..."                  # how its tools depend on the configuration the
                                         # entry gives (kept in each capture's recipe)
    limits: {timeout_s: 30, concurrency: 8, total_timeout_s: 120, max_pages: 100, ...}

Relative ``cwd`` and a relative ``command`` holding a "/" are resolved
against the servers file's folder; since the process runs there by default,
relative script paths in ``args`` work as written. An installed package
(``package:``) whose entry names no ``cwd`` and no file beside the servers
file runs in its capture's own empty folder instead: what it writes there
(logs, databases, a client's configuration) is removed with the capture
and never lands beside the servers file.

A registry ``server.json`` (or a registry API answer ``{"servers": [{"server":
{...}}]}``, or such entries inside ``servers:``) becomes one target per
npm/pypi package (a sweep of its one version) and per remote
(streamable-http or sse). ``environmentVariables`` and remote ``headers``
marked required with no value turn into ``${NAME}`` references.

Secrets: ``${VAR}`` stays unexpanded in targets; ``expand`` resolves it at
connection time and returns the resolved values so that error messages can
be scrubbed of them (``redact``).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from mcpdelta.errors import InputError
from mcpdelta.inputs import load_json, load_yaml, read_text
from mcpdelta.names import spelled as safe_name

from .model import Limits, PackageSpec, Target
from .package_names import check_selector, is_selector, name_problem, version_problem
from .probes import parse_probes
from .recipe import VAR, describe

TRANSPORTS = ("stdio", "streamable-http", "sse")
class MissingVariable(Exception):
    def __init__(self, name: str):
        super().__init__(f"environment variable {name} is not set")
        self.name = name


def expand(value: str, secrets: set[str]) -> str:
    """Resolve ``${VAR}`` from the environment; note resolved values in ``secrets``."""

    def sub(match: re.Match) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise MissingVariable(name)
        resolved = os.environ[name]
        if resolved:
            secrets.add(resolved)
        return resolved

    return VAR.sub(sub, value)


def load(path: str | Path) -> tuple[list[Target], Limits]:
    path = Path(path)
    where = str(path)
    text = read_text(path, what="servers file")  # bounded; FIFOs and devices refused
    # strict: a key twice is refused in JSON as in YAML (each reader would keep the last)
    data = load_json(text, where, strict=True) if path.suffix == ".json" else load_yaml(text, where)
    return parse(data, where, path.resolve().parent)


def read_ids(path: str | Path) -> list[str]:
    """The server ids a file lists, one a line (``--only-from``): a caller
    that names a server there puts its id on no command line, where an
    install script or a server that kills processes by name (``pgrep -f``,
    ``pkill -f``) would find and end the crawl."""
    ids = [line.strip() for line in read_text(path, what="id list").splitlines()]
    return [i for i in ids if i]


def parse(data, where: str, base: Path) -> tuple[list[Target], Limits]:
    if isinstance(data, dict) and _is_registry_server(data):
        return _from_registry(data, where), Limits()
    if isinstance(data, list):
        data = {"servers": data}
    if not isinstance(data, dict) or not isinstance(data.get("servers"), list):
        raise InputError(where, "expected a mapping with a 'servers' list (or a registry server.json)")
    unknown = set(data) - {"servers", "limits"}
    if unknown:
        raise InputError(where, f"unknown top-level key {sorted(unknown)[0]!r}")
    limits = data.get("limits") or {}
    if not isinstance(limits, dict):
        raise InputError(where, "limits: expected a mapping")
    targets: list[Target] = []
    for i, entry in enumerate(data["servers"]):
        if isinstance(entry, dict) and isinstance(entry.get("server"), dict) and "id" not in entry:
            targets.extend(_from_registry(entry["server"], f"{where}: servers[{i}]"))
        else:
            found = _entry(entry, f"{where}: servers[{i}]", base)
            probes = parse_probes(entry.get("probes"), f"{where}: servers[{i}]")
            serial = entry.get("serial", False)
            if not isinstance(serial, bool):
                raise InputError(f"{where}: servers[{i}]", f"serial: expected true or false, not {serial!r}")
            tool_set = entry.get("tool_set")
            if tool_set is not None and not isinstance(tool_set, str):
                raise InputError(f"{where}: servers[{i}]", "tool_set: expected a text")
            recipe = describe(command=entry.get("command"), args=entry.get("args") or (), env=entry.get("env"),
                              cwd=entry.get("cwd"), url=entry.get("url"), headers=entry.get("headers"),
                              package=found[0].package if found else None, base=base, tool_set=tool_set)
            for target in found:
                target.probes, target.serial, target.recipe = probes, serial, recipe
            targets.extend(found)
    for t in targets:  # a registry server.json's entries: recipes from what they became
        if t.recipe is None:
            t.recipe = describe(command=t.command, args=t.args, env=t.env, url=t.url, headers=t.headers,
                                package=t.package, base=base)
    seen: set[tuple] = set()
    folders: dict[str, str] = {}
    for t in targets:
        key = (t.id, t.version)
        if key in seen:
            raise InputError(where, f"duplicate server id {t.id!r}" + (f" at version {t.version}" if t.version else ""))
        seen.add(key)
        other = folders.setdefault(safe_name(t.id), t.id)
        if other != t.id:
            raise InputError(where, f"server ids {other!r} and {t.id!r} would write to the same folder "
                                    f"{safe_name(t.id)!r}; rename one")
    return targets, Limits.from_mapping(limits, where)


_ENTRY_KEYS = {"id", "transport", "command", "args", "env", "cwd", "url", "headers", "versions", "package",
               "description", "python", "node", "probes", "serial", "tool_set"}


def _strings(value, what: str, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise InputError(where, f"{what}: expected a list of strings")
    return [str(v) for v in value]


def _mapping(value, what: str, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(where, f"{what}: expected a mapping")
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


def _entry(entry, where: str, base: Path) -> list[Target]:
    if not isinstance(entry, dict):
        raise InputError(where, "expected a mapping")
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        raise InputError(where, f"unknown key {sorted(unknown)[0]!r}")
    sid = entry.get("id")
    if not isinstance(sid, str) or not sid.strip():
        raise InputError(where, "missing 'id'")
    where = f"{where} ({sid})"
    url = entry.get("url")
    transport = entry.get("transport") or ("streamable-http" if url else "stdio")
    if transport not in TRANSPORTS:
        raise InputError(where, f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
    args = _strings(entry.get("args"), "args", where)
    env = _mapping(entry.get("env"), "env", where)
    headers = _mapping(entry.get("headers"), "headers", where)
    cwd = entry.get("cwd")
    if cwd is None:
        cwd = str(base)
    elif not VAR.search(str(cwd)):  # a ${VAR} cwd is resolved at connection time, like env
        cwd = str((base / str(cwd)).resolve())
    command = entry.get("command")
    package = entry.get("package")
    if package is not None:
        if transport != "stdio":
            raise InputError(where, "a package sweep runs over stdio")
        spec = _package(package, where)
        spec.python = _python(entry.get("python"), spec, where)
        spec.node = _node(entry.get("node"), spec, where)
        return [Target(id=sid, transport="stdio", args=args, env=env, cwd=cwd, package=spec, source=where)]
    if transport == "stdio":
        if not isinstance(command, str) or not command:
            raise InputError(where, "a stdio server needs 'command' (or 'package')")
        if command == "{python}":
            command = sys.executable
        elif "/" in command and not os.path.isabs(command):
            command = str((base / command).resolve())
    else:
        if not isinstance(url, str) or not url.startswith(("http://", "https://", "${")):
            raise InputError(where, f"{transport} needs an http(s) 'url'")
    versions = entry.get("versions")
    if versions is None:
        return [Target(id=sid, transport=transport, command=command, args=args, env=env, cwd=cwd,
                       url=url, headers=headers, source=where)]
    versions = _strings(versions, "versions", where)
    if not versions:
        raise InputError(where, "versions: empty list")
    sub = lambda s: s.replace("{version}", v) if isinstance(s, str) else s  # noqa: E731
    out = []
    for v in versions:
        out.append(Target(id=sid, transport=transport, command=sub(command), args=[sub(a) for a in args],
                          env={k: sub(x) for k, x in env.items()}, cwd=cwd, url=sub(url),
                          headers={k: sub(x) for k, x in headers.items()}, version=v, source=where))
    return out


def _package(package, where: str) -> PackageSpec:
    if not isinstance(package, dict):
        raise InputError(where, "package: expected a mapping")
    registry, name = package.get("registry"), package.get("name")
    if registry not in ("npm", "pypi"):
        raise InputError(where, f"package.registry must be npm or pypi, not {registry!r}")
    problem = name_problem(registry, name)
    if problem:
        raise InputError(where, problem)
    versions = package.get("versions", "latest")
    if isinstance(versions, list):

        versions = _strings(versions, "package.versions", where)
        if not versions:
            raise InputError(where, "package.versions: empty list")
        for entry in versions:
            problem = check_selector(entry) if is_selector(entry) else version_problem(registry, entry)
            if problem:
                raise InputError(where, f"package.versions: {problem}")
    elif not isinstance(versions, str):
        raise InputError(where, "package.versions: a list, 'last N', 'latest' or a range like '>=0.6'")
    else:

        problem = check_selector(versions)
        if problem:
            raise InputError(where, f"package.versions: {problem}")
    bin_ = package.get("bin")
    return PackageSpec(registry=registry, name=name, versions=versions, bin=bin_ if isinstance(bin_, str) else None)


def _python(value, spec: PackageSpec, where: str) -> str | None:
    """``python: "3.12"``: the interpreter a PyPI server's venv is made with."""
    if value is None:
        return None
    if spec.registry != "pypi":
        raise InputError(where, "python: only a PyPI package sweep chooses its interpreter")
    value = str(value).strip()
    if not re.fullmatch(r"3\.[0-9]{1,2}", value):
        raise InputError(where, f"python: expected a version like \"3.12\", not {value!r}")
    return value


def _node(value, spec: PackageSpec, where: str) -> str | None:
    """``node: "22"``: the Node.js major an npm server is installed and run with."""
    if value is None:
        return None
    if spec.registry != "npm":
        raise InputError(where, "node: only an npm package sweep chooses its Node.js")
    value = str(value).strip().removeprefix("v")
    if not re.fullmatch(r"[1-9][0-9]?", value):
        raise InputError(where, f"node: expected a major version like \"22\", not {value!r}")
    return value


# -- the official registry's server.json ------------------------------------
def _is_registry_server(data: dict) -> bool:
    schema = str(data.get("$schema", ""))
    return "server.schema.json" in schema or (
        "servers" not in data and isinstance(data.get("name"), str)
        and ("packages" in data or "remotes" in data))


def _var_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text).upper()


def _registry_args(items) -> list[str]:
    out: list[str] = []
    for arg in items or []:
        if not isinstance(arg, dict):
            continue
        value = arg.get("value", arg.get("default", arg.get("valueHint")))
        if arg.get("type") == "named":
            name = arg.get("name")
            if name:
                out.append(str(name))
            if value is not None:
                out.append(str(value))
        elif value is not None:
            out.append(str(value))
    return out


def _from_registry(server: dict, where: str) -> list[Target]:

    name = server.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(where, "registry server.json without a 'name'")
    base_id = safe_name(name)
    targets: list[Target] = []
    for i, pkg in enumerate(server.get("packages") or []):
        if not isinstance(pkg, dict):
            continue
        kind = pkg.get("registryType") or pkg.get("registry_type") or pkg.get("registry_name")
        ident = pkg.get("identifier") or pkg.get("name")
        version = pkg.get("version") or server.get("version") or "latest"
        env = {}
        for var in pkg.get("environmentVariables") or pkg.get("environment_variables") or []:
            if not isinstance(var, dict) or not var.get("name"):
                continue
            value = var.get("value", var.get("default"))
            if value is None and var.get("isRequired"):
                value = "${" + str(var["name"]) + "}"
            if value is not None:
                env[str(var["name"])] = str(value)
        t = Target(id=base_id, transport="stdio", args=_registry_args(pkg.get("packageArguments")), env=env,
                   source=f"{where}: packages[{i}]")
        transport = (pkg.get("transport") or {}).get("type", "stdio") if isinstance(pkg.get("transport"), dict) else "stdio"
        if kind not in ("npm", "pypi") or not ident:
            t.problem = f"package of registry type {kind!r} is not supported (npm and pypi are)"
        elif problem := name_problem(kind, str(ident)) or (
                None if is_selector(str(version)) else version_problem(kind, str(version))):
            t.problem = problem  # before anything runs; the file's other entries are crawled
        elif transport != "stdio":
            t.problem = f"package transport {transport!r}: only stdio packages can be launched"
        else:
            t.package = PackageSpec(registry=kind, name=str(ident), versions=[str(version)])
        t.version = str(version)
        targets.append(t)
    for i, remote in enumerate(server.get("remotes") or []):
        if not isinstance(remote, dict):
            continue
        headers = {}
        for h in remote.get("headers") or []:
            if not isinstance(h, dict) or not h.get("name"):
                continue
            value = h.get("value", h.get("default"))
            if value is None and (h.get("isRequired") or h.get("isSecret")):
                value = "${" + _var_name(str(h["name"])) + "}"
            if value is not None:
                headers[str(h["name"])] = str(value)
        kind = remote.get("type") or remote.get("transport_type")
        t = Target(id=base_id, transport=kind if kind in ("streamable-http", "sse") else "streamable-http",
                   url=remote.get("url"), headers=headers, source=f"{where}: remotes[{i}]")
        if kind not in ("streamable-http", "sse"):
            t.problem = f"remote of type {kind!r} is not supported"
        elif not isinstance(t.url, str):
            t.problem = "remote without a url"
        targets.append(t)
    if not targets:
        raise InputError(where, f"registry server {name!r} lists no packages or remotes")
    if len(targets) > 1:  # several ways to reach one server: give each its own id
        for t in targets:
            suffix = t.package.registry if t.package else ("remote-" + t.transport) if not t.problem or t.url else "x"
            t.id = f"{base_id}-{suffix}"
        counts: dict[str, int] = {}
        for t in targets:
            counts[t.id] = counts.get(t.id, 0) + 1
            if counts[t.id] > 1:
                t.id = f"{t.id}-{counts[t.id]}"
    return targets
