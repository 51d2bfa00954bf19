"""The independent judge: every witness is confirmed by ``jsonschema-rs``.

The engine's own reading of a schema never decides whether a value is a
witness. Each raw tool schema is validated with the validator its
``$schema`` names (Draft 2020-12 when it names none), formats asserted.

``jsonschema-rs`` (a Rust implementation, imported as ``jsonschema_rs``)
stands in for python-jsonschema here: it is independent of the engine
(and of python-jsonschema, which the tests use as a second check), and it
imports in a fraction of the time (no ``referencing`` / ``rpds`` / ``attrs``
and no metaschema files read at import), so a diff whose breaks are
witnessed constructively stays within the engine's whole-process target.
Imported only when witnesses are computed.

Differences from python-jsonschema that matter here, and how they are met:

- ``$ref`` is resolved when the validator is built, not when a value is
  validated, so an unresolvable reference fails ``Judge()``; nothing is
  ever fetched over the network (``offline=True``). A local pointer that
  names nothing is read both ways instead, and only values that never
  reach it are judged (``Judge._read_both_ways``).
- python-jsonschema's ``absolute_schema_path`` is this package's
  ``evaluation_path`` less the ``$ref`` keywords it passes through
  (``schema_path`` is the resolved location in the document instead);
  ``error_paths`` rebuilds the former, so attribution reads the same paths.
- Nested errors: python-jsonschema's ``error.context`` (the per-branch
  errors of ``anyOf`` / ``oneOf``) is ``error.kind.context`` here, one list
  per branch, flattened the same way.
"""

import os

import jsonschema_rs

from mcpdelta.engine.equality import canonical
from mcpdelta.engine.normalise import pointer_target
from mcpdelta.witness.regexparse import features

DEFAULT = jsonschema_rs.Draft202012Validator
OLDER = (jsonschema_rs.Draft201909Validator, jsonschema_rs.Draft7Validator,
         jsonschema_rs.Draft6Validator, jsonschema_rs.Draft4Validator)
# formats asserted (python-jsonschema: format_checker=cls.FORMAT_CHECKER);
# never fetch a remote $ref: a reference outside the document is unusable
OPTIONS = {"validate_formats": True, "offline": True}


def _version() -> str:
    """The installed distribution's version, read from its ``.dist-info``
    folder name: ``importlib.metadata`` alone costs ~30 ms to import."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(jsonschema_rs.__file__)))
    try:
        for entry in os.listdir(site):
            if entry.startswith("jsonschema_rs-") and entry.endswith(".dist-info"):
                return entry[len("jsonschema_rs-"):-len(".dist-info")]
    except OSError:  # pragma: no cover
        pass
    try:  # pragma: no cover - an unusual layout
        from importlib.metadata import version
        return version("jsonschema-rs")
    except Exception:  # pragma: no cover
        return "?"


JSONSCHEMA_RS_VERSION = _version()


class SchemaUnusable(Exception):
    """The schema cannot be compiled or evaluated (bad schema, remote $ref)."""


def _is_reference_error(exc) -> bool:
    kind = getattr(exc, "kind", None)
    return getattr(kind, "name", None) == "$ref" or type(kind).__name__ == "Referencing"


def _message(exc) -> str:
    return str(getattr(exc, "message", None) or exc).splitlines()[0]


class Judge:
    """A compiled validator for one schema. ``None`` (no schema declared) and
    ``True`` accept everything."""

    def __init__(self, schema, formats=True):
        if schema is None:
            schema = True
        self.schema = schema
        options = OPTIONS if formats else {**OPTIONS, "validate_formats": False}
        cls = DEFAULT
        if isinstance(schema, dict):
            try:
                cls = jsonschema_rs.validator_cls_for(schema)
            except Exception:  # a $schema that is not a string: read as the default
                cls = DEFAULT
        self.nowhere = ()      # the references to nowhere, each read both ways
        self._open = None      # the validator that reads them as accepting
        try:
            validator = cls(schema, **options)
        except jsonschema_rs.ValidationError as exc:
            if _is_reference_error(exc):
                validator = self._read_both_ways(schema, cls, options, exc)
            else:
                # Building a validator checks the schema against its draft's
                # metaschema. No $schema and not valid 2020-12 (draft-04 boolean
                # exclusiveMinimum, array-form items): read it in the newest draft
                # whose metaschema accepts it, as a validator honouring its age would.
                validator = None
                if isinstance(schema, dict) and "$schema" not in schema:
                    for older in OLDER:
                        try:
                            validator = older(schema, **options)
                        except jsonschema_rs.ValidationError:
                            continue
                        cls = older
                        break
                if validator is None:
                    raise SchemaUnusable(f"the schema is not valid {cls.__name__}: {_message(exc)}") from None
        except Exception as exc:  # ReferencingError, a schema that is not JSON, ...
            raise SchemaUnusable(f"cannot compile the schema: {type(exc).__name__}: {_message(exc)}") from None
        self.cls = cls
        self._validator = validator

    def _read_both_ways(self, schema, cls, options, exc):
        """The validator of ``schema`` with each local reference to nowhere
        read as rejecting every value (what evaluating it does: a validator
        that resolves references lazily fails there); another reads them as
        accepting and marked, and a value that reaches one in that reading,
        or whose verdict the two readings split, is not judged (``accepts``
        raises). Any other unresolvable reference leaves the schema unusable."""
        unusable = SchemaUnusable(f"cannot resolve a reference: {_message(exc)}")
        try:
            nowhere = references_to_nowhere(schema)
            if not nowhere:
                raise unusable
            siblings = cls in (jsonschema_rs.Draft201909Validator, jsonschema_rs.Draft202012Validator)
            validator = cls(read_as(schema, nowhere, False, siblings), **options)
            self._open = cls(read_as(schema, nowhere, True, siblings), **options)
        except (jsonschema_rs.ValidationError, RecursionError):
            raise unusable from None
        self.nowhere = tuple(sorted(nowhere))
        return validator

    @property
    def name(self) -> str:
        name = f"jsonschema-rs {JSONSCHEMA_RS_VERSION} {self.cls.__name__}"
        if self.nowhere:
            count = len(self.nowhere)
            name += (f" ({count} reference{'s' if count > 1 else ''} to nowhere in the schema:"
                     " a value that reaches one is not judged)")
        return name

    def accepts(self, value) -> bool:
        try:
            verdict = self._validator.is_valid(value)
            reaches = self._open is not None and _reaches_nowhere(self._open, value, verdict)
        except Exception as exc:  # a value that is not JSON (a set, an unsupported number)
            raise SchemaUnusable(f"cannot evaluate the schema: {type(exc).__name__}: {exc}") from None
        if reaches:
            raise SchemaUnusable("the value reaches a reference to nowhere: " + ", ".join(self.nowhere))
        return verdict

    def error_paths(self, value):
        """(top-level error schema paths, every error's path with nested
        combinator errors included), as tuples of str. Paths run through
        ``$ref`` as python-jsonschema's ``absolute_schema_path`` does."""
        top = self.top_errors(value)
        every, stack = [], list(top)
        while stack:
            error = stack.pop()
            every.append(schema_path(error))
            # anyOf / oneOf: one list of errors per branch. (The error under
            # propertyNames, kind.error, is not descended: its path is the
            # outer error's, as python-jsonschema reports it once.)
            for branch in getattr(error.kind, "context", None) or ():
                stack.extend(e for e in branch if not _spurious(e))
        return [schema_path(e) for e in top], every

    def top_errors(self, value):
        """The top-level errors (combinators' branch errors nested inside)."""
        return [e for e in self._validator.iter_errors(value) if not _spurious(e)]


# keywords whose value is data, not a schema: a "$ref" inside is no reference
_DATA = frozenset(("enum", "const", "default", "examples"))


def references_to_nowhere(root) -> set:
    """The local JSON-pointer references (``#/...``) of ``root`` that name
    nothing in it. None of them is counted under a nested ``$id`` (a base of
    its own): such a schema is left unusable."""
    found, stack = set(), [(root, False)]
    while stack:
        node, names = stack.pop()
        if isinstance(node, dict):
            if not names:
                if node is not root and "$id" in node:
                    return set()
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/") and pointer_target(root, ref) is None:
                    found.add(ref)
            for key, value in node.items():
                if names or key not in _DATA:
                    stack.append((value, not names and key in _NAMED))
        elif isinstance(node, list) and not names:
            stack.extend((value, False) for value in node)
    return found


NOWHERE = "x-mcpdelta-nowhere"  # marks, as an annotation, a reference to nowhere read as accepting


def read_as(node, nowhere, accepting: bool, siblings: bool, names=False):
    """``node`` with each reference in ``nowhere`` read as rejecting (the
    schema holding it becomes ``false``) or as accepting, marked: the
    ``$ref`` becomes the ``NOWHERE`` annotation (the keywords beside it
    kept where they apply, from 2019-09 on)."""
    if isinstance(node, list):
        return node if names else [read_as(v, nowhere, accepting, siblings) for v in node]
    if not isinstance(node, dict):
        return node
    if not names:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in nowhere:
            if not accepting:
                return False
            kept = {k: v for k, v in node.items() if k != "$ref"} if siblings else {}
            node = {**kept, NOWHERE: ref}
    return {key: value if not names and key in _DATA
            else read_as(value, nowhere, accepting, siblings, not names and key in _NAMED)
            for key, value in node.items()}


def _reaches_nowhere(marked, value, verdict) -> bool:
    """Whether the validator that reads the references to nowhere as
    accepting and marked either judges ``value`` otherwise than ``verdict``
    or passes through a marked place where it judges it valid. (A place
    inside a branch that fails for another reason is not reported: the
    output drops failed branches.)"""
    evaluation = marked.evaluate(value)
    if evaluation.flag()["valid"] != verdict:
        return True
    return any(isinstance(unit.get("annotations"), dict) and NOWHERE in unit["annotations"]
               for unit in evaluation.list()["details"])


# keywords that decide whether a subschema applies at all (dependentRequired:
# whether a property is required)
_CONDITIONS = frozenset(("if", "then", "else", "dependentSchemas", "dependentRequired",
                         "dependencies", "$dynamicRef", "$recursiveRef"))


def as_reported(path) -> tuple:
    """A path (of an instance or of a schema) as jsonschema-rs reports it, to
    compare with one of its paths: a key that Rust parses as a u64 ("0",
    "007", "+1") is that integer, as an index is. Two such keys that meet
    ("7" and "+007") are one place then (see ``ambiguous``)."""
    return tuple(_number(p) if isinstance(p, str) and _unsigned(p) else p for p in path)


U64_MAX = "18446744073709551615"


def _unsigned(text) -> bool:
    """Whether Rust's ``str::parse::<u64>`` reads ``text``: ASCII digits, one
    optional "+", any leading zeros, at most u64's maximum."""
    digits = text[1:] if text.startswith("+") else text
    if not (digits.isascii() and digits.isdigit()):
        return False
    value = digits.lstrip("0")
    return len(value) < len(U64_MAX) or (len(value) == len(U64_MAX) and value <= U64_MAX)


def _number(text) -> int:
    return int(text.lstrip("+").lstrip("0") or "0")  # at most 20 digits: no int() limit met


def ambiguous(schema, path) -> bool:
    """Whether schema path ``path`` (its parts as str) passes through a name
    that jsonschema-rs cannot tell from a sibling's: ``"007"`` beside
    ``"7"`` under one ``properties``, both reported as 7. An error path
    through such a name may be either's."""
    node, is_name = schema, False
    for part in map(str, path):
        if is_name:
            if isinstance(node, dict) and _unsigned(part) and sum(
                    isinstance(key, str) and _unsigned(key) and _number(key) == _number(part)
                    for key in node) > 1:
                return True
            is_name = False
        else:
            is_name = part in _NAMED
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and _unsigned(part) and _number(part) < len(node):
            node = node[_number(part)]
        else:
            return False
    return False


def unchanged_by(error, varied) -> bool:
    """Whether ``error`` stays for every value that differs from the one it
    was raised on only under instance path ``varied``: it is raised outside
    that path, or on an ancestor for a missing required property or an
    unexpected one other than the key leading there, and no condition on
    its way (``if``, ``dependentSchemas``) could switch its schema off."""
    if any(part in _CONDITIONS for part in _keywords(error.evaluation_path)):
        return False
    # two keys that meet ("7" and "+007") only make this check stricter
    at, where = as_reported(error.instance_path), as_reported(varied)
    if where[:len(at)] != at:
        return at[:len(where)] != where  # not inside the varied value either
    if len(at) == len(where):
        return False  # raised on the varied value itself
    leading = varied[len(at)]
    kind = error.kind
    name = type(kind).__name__
    if name == "Required":
        return getattr(kind, "property", None) != leading
    if name == "AdditionalProperties":
        return any(key != leading for key in getattr(kind, "unexpected", None) or ())
    return False


def missing(error):
    """The property a ``required`` error says is missing, else None."""
    return getattr(error.kind, "property", None) if type(error.kind).__name__ == "Required" else None


def _spurious(error) -> bool:
    """A ``required`` error for a property the object has: jsonschema-rs
    0.61 reports one beside the ``additionalProperties: false`` error when
    a required property is not among ``properties`` (the value is invalid
    either way; python-jsonschema reports only the latter)."""
    name = missing(error)
    return name is not None and isinstance(error.instance, dict) and name in error.instance


# keywords whose next path part is a property (or definition) name
_NAMED = frozenset(("properties", "patternProperties", "dependentSchemas", "dependencies",
                    "$defs", "definitions"))


def schema_path(error):
    """The error's schema path as python-jsonschema's ``absolute_schema_path``
    spells it: the evaluation path, without the ``$ref`` keywords it passed
    through (python-jsonschema leaves ``$ref`` and ``if`` out; this
    evaluation path has no ``if`` either: ``then`` / ``else`` stand alone)."""
    parts, named = [], False
    for part in error.evaluation_path:
        if named:  # a property name, even one spelled "$ref"
            parts.append(str(part))
            named = False
        elif isinstance(part, int):
            parts.append(str(part))
        elif part != "$ref":
            parts.append(part)
            named = part in _NAMED
    return tuple(parts)


def _keywords(evaluation_path):
    """The keywords of an evaluation path (not the property names in it)."""
    named = False
    for part in evaluation_path:
        if named:
            named = False
        elif isinstance(part, str):
            yield part
            named = part in _NAMED


_CACHE = {}  # a validator and its schema: about 7 KB for a real tool schema
_BY_ID = {}  # id(schema) -> (schema, Judge or SchemaUnusable): no re-serialising a big schema


def judge(schema, text=None, formats=True) -> Judge:
    """A cached ``Judge``, keyed by the schema's canonical text (given, or
    computed here); ``formats=False`` reads ``format`` as an annotation."""
    found = _compiled(schema, text, formats)
    if isinstance(found, SchemaUnusable):
        raise SchemaUnusable(*found.args)
    return found


def _compiled(schema, key=None, formats=True):
    if key is None:
        key = canonical(schema)
    found = _CACHE.get(key if formats else (key, False))
    if found is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        try:
            found = Judge(schema, formats)
        except SchemaUnusable as exc:  # remembered: quick() asks again and again
            found = exc
        _CACHE[key if formats else (key, False)] = found
    return found


# Longest text a pattern with lookaround or a backreference is run on: those
# fall back to backtracking (fancy-regex), quadratic or worse in the text.
FANCY_TEXT = 256
_PATTERNS = {}


def matches(pattern, text):
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's
    unanchored reading), or None when it cannot be told. Evaluated by
    jsonschema-rs's Rust regex engine, which runs in time linear in the text
    for every pattern without lookaround or backreference (the rest are run
    on short texts only): a hostile pattern such as ``^(a+)+$`` cannot hang
    the witness work the way Python's backtracking ``re`` does."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return None
    found = _PATTERNS.get(pattern)
    if found is None:
        if len(_PATTERNS) > 1024:
            _PATTERNS.clear()
        try:
            found = (DEFAULT({"pattern": pattern}, **OPTIONS), _fancy(pattern))
        except Exception:  # not a pattern the validator reads
            found = (None, True)
        _PATTERNS[pattern] = found
    validator, fancy = found
    if validator is None or (fancy and len(text) > FANCY_TEXT):
        return None
    try:
        return validator.is_valid(text)
    except Exception:  # pragma: no cover - a text the validator cannot take
        return None


def _fancy(pattern) -> bool:
    """Lookaround or a backreference (or a pattern Python cannot parse)."""
    return bool(features(pattern) & {"lookaround", "backreference", "unparsed"})


def fancy_patterns(schema, depth=0) -> bool:
    """Whether a schema holds a pattern that needs backtracking."""
    if depth > 64:
        return True
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str) and _fancy(value):
                return True
            if key == "patternProperties" and isinstance(value, dict) and any(
                    _fancy(p) for p in value):
                return True
            if isinstance(value, (dict, list)) and fancy_patterns(value, depth + 1):
                return True
    elif isinstance(schema, list):
        return any(fancy_patterns(v, depth + 1) for v in schema)
    return False


def own_judge(schema) -> Judge:
    """A ``Judge`` for one of the witness package's own schemas (normalised
    ones, never changed once built), cached by the object: asked about
    again and again, a 20,000-value enum is serialised once, not once per
    candidate."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        found = hit[1]
    else:
        found = _compiled(schema)
        if len(_BY_ID) > 2048:
            _BY_ID.clear()
        _BY_ID[id(schema)] = (schema, found)  # holding the schema keeps its id unique
    if isinstance(found, SchemaUnusable):
        raise SchemaUnusable(*found.args)
    return found


def quick(schema, value):
    """Local best-effort check of a (normalised) subschema: True / False, or
    None when it cannot be evaluated (a cyclic ``$ref`` left by normalisation)."""
    try:
        return own_judge(schema).accepts(value)
    except SchemaUnusable:
        return None


def validator_label(accepting: Judge, rejecting: Judge) -> str:
    if accepting.cls is rejecting.cls:
        return accepting.name
    return f"{accepting.name} (accepts) / {rejecting.name} (rejects)"
