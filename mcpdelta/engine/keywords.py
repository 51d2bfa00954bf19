"""JSON Schema's vocabulary: which keywords validate, which only annotate.

Across the drafts MCP servers write (draft-04 to 2020-12). A keyword outside
both lists is no JSON Schema keyword at all (a vendor's ``x-...``, OpenAPI's
``nullable``): validators ignore it, so no value can show its change.
"""

# Keywords whose value is a map of name -> subschema, one subschema, a list
# of subschemas.
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs",
                         "definitions"})
SCHEMA_VALUES = frozenset({"additionalProperties", "items", "additionalItems", "not", "if", "then",
                           "else", "contains", "propertyNames", "unevaluatedItems",
                           "unevaluatedProperties", "contentSchema"})
SCHEMA_LISTS = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})

# Keywords that can reject a value (``format`` asserts where a validator is
# told to; ``dependencies`` is draft-07's dependentRequired/dependentSchemas).
VALIDATION = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "contains", "items", "prefixItems",
    "additionalItems", "unevaluatedItems", "maxProperties", "minProperties", "required",
    "dependentRequired", "dependencies", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "unevaluatedProperties", "dependentSchemas",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef",
    "$recursiveRef"})

# Annotations proper: what a schema says about its values to a reader.
ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly",
                         "writeOnly"})
# Keywords that name, annotate or document: the same values validate.
ANNOTATING = ANNOTATIONS | frozenset({
    "$comment", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema",
    "$vocabulary", "$defs", "definitions", "contentEncoding", "contentMediaType",
    "contentSchema"})


# The types each type-specific keyword acts on: a value of any other type
# passes it (a null passes them all).
ACTS_ON = {
    **{k: ("string",) for k in ("minLength", "maxLength", "pattern", "format",
                                "contentEncoding", "contentMediaType", "contentSchema")},
    **{k: ("number", "integer") for k in ("minimum", "maximum", "exclusiveMinimum",
                                          "exclusiveMaximum", "multipleOf")},
    **{k: ("array",) for k in ("items", "prefixItems", "additionalItems", "contains",
                               "minContains", "maxContains", "minItems", "maxItems",
                               "uniqueItems", "unevaluatedItems")},
    **{k: ("object",) for k in ("properties", "patternProperties", "additionalProperties",
                                "required", "minProperties", "maxProperties", "propertyNames",
                                "dependentRequired", "dependentSchemas", "dependencies",
                                "unevaluatedProperties")},
}
TYPE_SPECIFIC = frozenset(ACTS_ON)


# Keywords that read each other: merged into one schema, a keyword of one
# group from each side would change what it means (``additionalProperties``
# beside another schema's ``properties``), so such a pair stays an ``allOf``.
READ_TOGETHER = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset({"prefixItems", "items", "additionalItems", "unevaluatedItems"}),
    frozenset({"if", "then", "else"}),
    frozenset({"contains", "minContains", "maxContains"}),
)


def keyword_at(parts):
    """The keyword whose value holds the place ``parts`` (a path inside a
    schema): the last keyword met in a keyword's position, where a plain
    keyword's value is data, not schema. None for the schema's root."""
    keyword = None
    i = 0
    while i < len(parts):
        keyword = parts[i]
        if keyword in SCHEMA_MAPS or keyword in SCHEMA_LISTS:
            i += 2  # a name or an index, then a schema again
        elif keyword in SCHEMA_VALUES:
            i += 1
        else:
            break  # a plain keyword: the rest of the path is its value
    return keyword if isinstance(keyword, str) else None
