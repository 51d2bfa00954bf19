"""A mutation fuzzer of the engine's schema verdicts (docs/fuzzing.md).

Seeds are the real tool schemas in ``data/``; operators mutate one place of
each; the oracle is python-jsonschema on values hypothesis-jsonschema draws
from both sides, never the engine's own validator, witnesses or normaliser.

Convention for open objects: callers send and servers return only the
properties an object declares. When values are drawn, an object that does not
declare ``additionalProperties`` / ``patternProperties`` gets no undeclared
property (it is closed before drawing; values are then checked against the
schemas as written). A new optional property on an open object is therefore
NON_BREAKING on either side; on a closed output object it is a break.
"""
