"""The project config file: ``.mcpdelta.yml`` (or the ``.mcp-inspect.yml`` layout).

```yaml
profile: balanced            # strict | balanced | advisory
fail_on: BREAKING            # a severity, or never
severity_overrides:
  tool.annotations.safetyWeakened: BREAKING
ignore:
  - rule: tool.description.changed
    entity: legacy_*
    reason: "Legacy tools are being rewritten; churn is expected."
limits: {max_bytes: 67108864, max_depth: 256}
judges: [...]                # advisory judges (see the judge docs)
```

Every mistake names the file and line: an unknown rule id or severity is
an error, never a silent no-op.
"""

import os

from mcpdelta.engine.manifest import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from mcpdelta.engine.policy import PROFILES, Ignore, parse_rule, parse_severity
from mcpdelta.errors import InputError

DEFAULT_NAMES = (".mcpdelta.yml", ".mcpdelta.yaml", ".mcp-inspect.yml")
APPROVALS_NAME = ".mcpdelta-approvals.yml"  # approved breaks (mcpdelta/gate/approvals.py), read if present
KNOWN_KEYS = ("profile", "fail_on", "severity_overrides", "ignore", "limits", "judges")


class Config:
    def __init__(self, path=None):
        self.path = path
        self.profile = None
        self.fail_on = None
        self.overrides = {}
        self.ignores = []
        self.max_bytes = DEFAULT_MAX_BYTES
        self.max_depth = DEFAULT_MAX_DEPTH
        self.judges = []  # raw entries with their line, read by the judge module


def find_default(directory: str = ".") -> str | None:
    for name in DEFAULT_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def load_config(path: str | None) -> Config:
    """Read a config file; ``None`` gives the defaults."""
    config = Config(path)
    if path is None:
        return config
    import yaml  # only a run that has a config file pays for the YAML parser

    from mcpdelta.inputs import compose_yaml, read_text

    # bounded: a FIFO or /dev/zero is refused, an alias bomb or a recursive alias too
    root = compose_yaml(read_text(path, what="config file"), path)
    if root is None:
        return config
    if not isinstance(root, yaml.MappingNode):
        raise InputError(f"{path}:{root.start_mark.line + 1}", "config must be a mapping")
    for key_node, value_node in root.value:
        key = key_node.value
        where = f"{path}:{key_node.start_mark.line + 1}"
        if key not in KNOWN_KEYS:
            raise InputError(where, f"unknown config key {key!r} (expected one of {', '.join(KNOWN_KEYS)})")
        _apply(config, key, value_node, path, where)
    return config


def _line(path, node) -> str:
    return f"{path}:{node.start_mark.line + 1}"


def _scalar(node, where, what):
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        raise InputError(where, f"{what} must be a single value")
    return node.value


def _mapping(node, where, what):
    import yaml

    if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
        return []
    if not isinstance(node, yaml.MappingNode):
        raise InputError(where, f"{what} must be a mapping")
    return node.value


def _apply(config, key, node, path, where):
    import yaml

    if key == "profile":
        value = _scalar(node, where, "profile")
        if value not in PROFILES:
            raise InputError(where, f"unknown profile {value!r} (expected one of {', '.join(PROFILES)})")
        config.profile = value
    elif key == "fail_on":
        config.fail_on = parse_severity(_scalar(node, where, "fail_on"), where, allow_never=True)
    elif key == "severity_overrides":
        for rule_node, sev_node in _mapping(node, where, "severity_overrides"):
            line = _line(path, rule_node)
            rule = parse_rule(rule_node.value, line)
            config.overrides[rule] = parse_severity(_scalar(sev_node, line, "a severity"), line)
    elif key == "ignore":
        if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
            return
        if not isinstance(node, yaml.SequenceNode):
            raise InputError(where, "ignore must be a list of {rule, entity, reason}")
        for item in node.value:
            line = _line(path, item)
            fields = {k.value: _scalar(v, _line(path, k), k.value)
                      for k, v in _mapping(item, line, "each ignore entry")}
            unknown = set(fields) - {"rule", "entity", "reason"}
            if unknown:
                raise InputError(line, f"unknown ignore field {sorted(unknown)[0]!r} (expected rule, entity, reason)")
            if "rule" not in fields and "entity" not in fields:
                raise InputError(line, "an ignore entry needs a rule or an entity")
            rule = parse_rule(fields["rule"], line, allow_glob=True) if "rule" in fields else None
            config.ignores.append(Ignore(rule, fields.get("entity"), fields.get("reason")))
    elif key == "limits":
        for limit_node, value_node in _mapping(node, where, "limits"):
            line = _line(path, limit_node)
            name = limit_node.value
            if name not in ("max_bytes", "max_depth"):
                raise InputError(line, f"unknown limit {name!r} (expected max_bytes, max_depth)")
            value = _scalar(value_node, line, name)
            if not value.isdigit() or int(value) < 1:
                raise InputError(line, f"{name} must be a positive whole number, got {value!r}")
            if name == "max_depth" and int(value) > DEFAULT_MAX_DEPTH:
                # the engine's walks recurse per level: deeper is Python's limit, not ours
                raise InputError(line, f"max_depth can only be lowered: at most {DEFAULT_MAX_DEPTH} levels, "
                                       f"got {value}")
            setattr(config, name, int(value))
    elif key == "judges":
        data = yaml.SafeLoader("").construct_document(node)  # checked by compose_yaml
        if data is None:
            return
        if not isinstance(data, list):
            raise InputError(where, "judges must be a list")
        config.judges = [(entry, _line(path, item)) for entry, item in zip(data, node.value)]
