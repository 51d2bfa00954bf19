"""The independent judge: every witness is confirmed by ``jsonschema``.

The engine's own reading of a schema never decides whether a value is a
witness. Each raw tool schema is validated with the validator its
``$schema`` names (Draft 2020-12 when it names none), formats asserted.
Imported only when witnesses are computed.
"""

import json

import jsonschema
from jsonschema import validators as _validators

try:
    from importlib.metadata import version as _dist_version
    JSONSCHEMA_VERSION = _dist_version("jsonschema")
except Exception:  # pragma: no cover
    JSONSCHEMA_VERSION = getattr(jsonschema, "__version__", "?")

DEFAULT = _validators.Draft202012Validator
OLDER = (_validators.Draft201909Validator, _validators.Draft7Validator,
         _validators.Draft6Validator, _validators.Draft4Validator)


class SchemaUnusable(Exception):
    """The schema cannot be compiled or evaluated (bad schema, remote $ref)."""


class Judge:
    """A compiled validator for one schema. ``None`` (no schema declared) and
    ``True`` accept everything."""

    def __init__(self, schema):
        if schema is None:
            schema = True
        self.schema = schema
        cls = _validators.validator_for(schema, default=DEFAULT) if isinstance(schema, dict) else DEFAULT
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            # No $schema and not valid 2020-12 (draft-04 boolean exclusiveMinimum,
            # array-form items): read it in the newest draft whose metaschema
            # accepts it, as a validator honouring its age would.
            fallback = None
            if isinstance(schema, dict) and "$schema" not in schema:
                for older in OLDER:
                    try:
                        older.check_schema(schema)
                    except jsonschema.SchemaError:
                        continue
                    fallback = older
                    break
            if fallback is None:
                raise SchemaUnusable(f"the schema is not valid {cls.__name__}: {exc.message}") from None
            cls = fallback
        self.cls = cls
        self._validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    @property
    def name(self) -> str:
        return f"jsonschema {JSONSCHEMA_VERSION} {self.cls.__name__}"

    def accepts(self, value) -> bool:
        try:
            return self._validator.is_valid(value)
        except Exception as exc:  # an unresolvable $ref and friends
            raise SchemaUnusable(f"cannot evaluate the schema: {type(exc).__name__}: {exc}") from None

    def error_paths(self, value):
        """(top-level error schema paths, every error's path with nested
        combinator errors included), as tuples of str."""
        top = list(self._validator.iter_errors(value))
        every, stack = [], list(top)
        while stack:
            error = stack.pop()
            every.append(tuple(str(p) for p in error.absolute_schema_path))
            stack.extend(error.context or ())
        return [tuple(str(p) for p in e.absolute_schema_path) for e in top], every


_CACHE = {}


def judge(schema) -> Judge:
    """A cached ``Judge`` (keyed by the schema's canonical text)."""
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        found = _CACHE[key] = Judge(schema)
    return found


def quick(schema, value):
    """Local best-effort check of a (normalised) subschema: True / False, or
    None when it cannot be evaluated (a cyclic ``$ref`` left by normalisation)."""
    try:
        return judge(schema).accepts(value)
    except SchemaUnusable:
        return None


def validator_label(accepting: Judge, rejecting: Judge) -> str:
    if accepting.cls is rejecting.cls:
        return accepting.name
    return f"{accepting.name} (accepts) / {rejecting.name} (rejects)"
