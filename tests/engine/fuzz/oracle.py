"""The oracle: python-jsonschema on values hypothesis-jsonschema draws.

Nothing here reads the engine. A schema is checked by the validator its own
``$schema`` names (Draft 2020-12 when it names none or one python-jsonschema
does not know)."""

import copy
import warnings

import jsonschema
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import HypothesisException, HypothesisWarning
from hypothesis_jsonschema import from_schema

MAX_VALUE_CHARS = 20_000  # a drawn value larger than this (as repr) is dropped


class Undrawable(Exception):
    """hypothesis-jsonschema cannot draw from this schema (counted as skipped)."""


def validator(schema, formats=False):
    """A python-jsonschema validator for ``schema``, by its own ``$schema``;
    ``formats``: ``format`` asserted as the engine reads it, every format
    python-jsonschema checks whatever the draft (a ``uuid`` under draft-07,
    which that draft does not define, as zod, which writes it, validates
    it: docs/rules.md, "Formats"), else an annotation (the 2020-12 default)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=jsonschema.FormatChecker() if formats else None)


def accepts(check, value) -> bool:
    try:
        return check.is_valid(value)
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions._WrappedReferencingError,
            RecursionError, ValueError, TypeError, KeyError):
        return False


# Keywords under which a subschema is checked on its own, so closing an object
# there changes only what is drawn. allOf, not and if/then/else are left as
# they are: closing one member of a conjunction would reject the others' keys.
_CHILD_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_CHILD_LISTS = ("anyOf", "oneOf", "prefixItems")
_CHILD_ONE = ("items", "additionalProperties", "additionalItems", "contains", "propertyNames")


def closed(schema):
    """``schema`` with every object that declares properties and says nothing
    of other keys closed (``additionalProperties: false``): callers send and
    servers return only the properties an object declares."""
    out = copy.deepcopy(schema)
    _close(out, 0)
    return out


def _close(node, depth):
    if not isinstance(node, dict) or depth > 64:
        return
    if (isinstance(node.get("properties"), dict) and "additionalProperties" not in node
            and "patternProperties" not in node and "unevaluatedProperties" not in node
            and not any(k in node for k in ("allOf", "$ref", "if", "dependentSchemas", "dependencies"))):
        node["additionalProperties"] = False
    for key in _CHILD_MAPS:
        if isinstance(node.get(key), dict):
            for child in node[key].values():
                _close(child, depth + 1)
    for key in _CHILD_LISTS:
        if isinstance(node.get(key), list):
            for child in node[key]:
                _close(child, depth + 1)
    for key in _CHILD_ONE:
        if isinstance(node.get(key), list):  # draft-07 items as an array
            for child in node[key]:
                _close(child, depth + 1)
        else:
            _close(node.get(key), depth + 1)


def draw(schema, count: int, seed_value: int) -> list:
    """Up to ``count`` values drawn from ``schema``, the same every run for one
    seed. Raises Undrawable when hypothesis-jsonschema refuses the schema."""
    try:
        strategy = from_schema(schema)
    except Exception as exc:  # its canonicaliser raises many kinds on schemas it cannot read
        raise Undrawable(f"{type(exc).__name__}: {str(exc)[:120]}") from None
    values = []

    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(strategy)
    def collect(value):
        if len(repr(value)) <= MAX_VALUE_CHARS:
            values.append(value)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            collect()
        except (HypothesisException, RecursionError) as exc:
            if not values:
                raise Undrawable(f"{type(exc).__name__}: {str(exc)[:120]}") from None
        except Exception as exc:  # a strategy that raises while drawing
            if not values:
                raise Undrawable(f"{type(exc).__name__}: {str(exc)[:120]}") from None
    return values
