"""The rule catalog: every rule the engine can emit, declared once.

The CLI's ``rules`` command, ``docs/rules.md``, SARIF rule metadata, the
policy layer and the tests all read this table. Nothing else spells a
default severity. Ids are stable forever: a reclassification adds a new id.

A rule whose severity is ``PROSE`` is a prose rule: the prose classifier
(``prose.py``) decides, per change, between DOCUMENTATION and
POTENTIALLY_BREAKING.

Message templates may use ``{entity}`` (the tool, prompt, resource or
template), ``{where}`` (a short human locator such as ``property q``),
``{old}`` / ``{new}`` (short renderings of the values) and ``{detail}``.
"""

BREAKING = "BREAKING"
POTENTIALLY_BREAKING = "POTENTIALLY_BREAKING"
NON_BREAKING = "NON_BREAKING"
DOCUMENTATION = "DOCUMENTATION"
PROSE = "PROSE"  # classified per change: DOCUMENTATION or POTENTIALLY_BREAKING

# Most severe first. Ranks compare severities against a failure threshold.
SEVERITIES = (BREAKING, POTENTIALLY_BREAKING, NON_BREAKING, DOCUMENTATION)
RANK = {s: len(SEVERITIES) - i for i, s in enumerate(SEVERITIES)}


class Rule:
    __slots__ = ("id", "severity", "category", "summary", "note", "message", "shows")

    def __init__(self, id, severity, category, summary, note, message):
        self.id = id
        self.severity = severity
        self.category = category
        self.summary = summary
        self.note = note
        self.message = message
        # does the message print the old / the new value? (most do not)
        self.shows = ("{old}" in message, "{new}" in message)

    @property
    def prose(self) -> bool:
        return self.severity == PROSE

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "severity": POTENTIALLY_BREAKING if self.prose else self.severity,
            "severities": [DOCUMENTATION, POTENTIALLY_BREAKING] if self.prose else [self.severity],
            "classified": self.prose,
            "category": self.category,
            "summary": self.summary,
            "note": self.note,
        }


_NOTHING = "Nothing to do: "

# (id, severity, summary, note, message) grouped by category.
_SERVER = [
    ("server.cache.ttlChanged", DOCUMENTATION,
     "A list result's `ttlMs` cache hint (protocol 2026-07-28) changed: how long a client may reuse the list, not what the list holds.",
     _NOTHING + "a cache hint only moves when clients refetch; the list itself is compared entry by entry.",
     "The list's cache lifetime (ttlMs) changed from {old} to {new}."),
    ("server.capability.added", NON_BREAKING,
     "A capability is now advertised.",
     _NOTHING + "a new capability is additive; clients that do not know it ignore it.",
     "Capability {where} is now advertised."),
    ("server.capability.changed", POTENTIALLY_BREAKING,
     "A capability's settings changed, e.g. `listChanged` or `subscribe` flipped.",
     "Check that clients relying on the previous flag still behave correctly.",
     "Capability {where} changed from {old} to {new}."),
    ("server.capability.removed", BREAKING,
     "`capabilities.tools` / `resources` / `prompts` / ... withdrawn.",
     "Clients gate whole feature sets on this capability. Restore it, or announce the removal a release ahead.",
     "Capability {where} is no longer advertised."),
    ("server.extension.added", NON_BREAKING,
     "A new extension is advertised.",
     _NOTHING + "clients that did not negotiate the extension are unaffected.",
     "Extension {where} is now advertised."),
    ("server.extension.changed", POTENTIALLY_BREAKING,
     "An extension's settings object changed.",
     "Extension settings are part of the negotiated contract; version the extension id if this is not backwards compatible.",
     "The settings of extension {where} changed."),
    ("server.extension.removed", BREAKING,
     "An advertised extension is gone; clients negotiated for it.",
     "A client that negotiated this extension will lose the behaviour it asked for. Restore it, or fall back to core behaviour explicitly.",
     "Extension {where} is no longer advertised."),
    ("server.field.changed", POTENTIALLY_BREAKING,
     "A top-level manifest field the engine does not model was added, removed or changed.",
     "mcpdelta does not model this field, so it reports the change for a human to judge rather than ignore it.",
     "Server field {where} changed from {old} to {new}."),
    ("server.identity.changed", DOCUMENTATION,
     "`serverInfo.name` / `version` / `title` changed.",
     _NOTHING + "the identity is informational; check release notes match the new version.",
     "Server identity {where} changed from {old} to {new}."),
    ("server.instructions.changed", PROSE,
     "The `instructions` string changed. It is in the model's context.",
     "Instructions are in the model's context on every conversation. Re-run any evaluation that depends on how this server is used.",
     "The server instructions changed ({detail})."),
    ("server.manifest.truncated", BREAKING,
     "One side is a single page of a paginated list (a non-null `nextCursor`): every entity past the page boundary reads as removed, so the comparison is unsound.",
     "Nothing about the change: fix the capture. Follow nextCursor to the end of every list and compare complete manifests.",
     "The {where} manifest is one page of a paginated list (nextCursor {detail}); the comparison is unsound."),
    ("server.protocolVersion.changed", POTENTIALLY_BREAKING,
     "The negotiated revision changed. Different rules now apply.",
     "Confirm clients on the previous revision can still reach this server, and keep the old version in supportedVersions until they have moved.",
     "The protocol version changed from {old} to {new}."),
    ("server.surface.scopeNarrowed", POTENTIALLY_BREAKING,
     "A list result went `cacheScope: public` -> `private`: the surface now varies by authorization, so this snapshot describes one caller's view, not the server's.",
     "This surface now varies by authorization, so a snapshot describes one caller's view. Capture baselines with a consistent credential or this diff will report phantom changes.",
     "The cache scope of {where} narrowed from {old} to {new}."),
    ("server.version.added", NON_BREAKING,
     "A new protocol version is supported.",
     _NOTHING + "clients on the versions already supported are unaffected.",
     "Protocol version {new} is now supported."),
    ("server.version.dropped", BREAKING,
     "A previously supported protocol version is gone.",
     "Restore the version, or confirm no client still negotiates it.",
     "Protocol version {old} is no longer supported."),
]

# Schema rules exist once per direction. Each row: suffix, input severity,
# output severity, summary, input note, output note, message. Input is
# contravariant (the caller writes it), output covariant (the caller reads it).
_SCHEMA = [
    ("added", NON_BREAKING, NON_BREAKING,
     "An absent `{schema}` appeared.",
     _NOTHING + "a tool that declared no inputSchema accepted any arguments; check existing calls satisfy the new schema.",
     "Check the tool's own results conform to it from now on: declaring a schema makes every future result answerable to it.",
     "Tool {entity} now declares an {schema}."),
    ("removed", BREAKING, BREAKING,
     "A declared `{schema}` disappeared.",
     "Clients and hosts that generated argument types or validation from this schema lose them. Restore the schema, or release the removal as a major version.",
     "A client that generated types from this schema loses them. Restore the schema, or release the removal as a major version.",
     "Tool {entity} no longer declares an {schema}."),
    ("annotation.changed", DOCUMENTATION, DOCUMENTATION,
     "An annotation the walk does not read otherwise changed (`examples`, `readOnly`, `writeOnly`, `$id`, `$anchor`, `contentMediaType`, `contentEncoding`, `contentSchema`): the same values validate.",
     _NOTHING + "the same calls validate. Agents that show examples to a model may fill arguments differently.",
     _NOTHING + "the same results validate.",
     "The {detail} annotation of {where} in the {side} of tool {entity} changed."),
    ("constraint.changed", BREAKING, BREAKING,
     "`pattern`, `format`, `const`, `multipleOf`, `$ref` or a `oneOf` branch set changed: not orderable.",
     "The two constraints are not orderable, so compatibility cannot be established structurally. Verify by hand.",
     "The two constraints are not orderable, so compatibility cannot be established structurally. Verify by hand.",
     "The {detail} constraint of {where} in the {side} of tool {entity} changed from {old} to {new}."),
    ("constraint.loosened", NON_BREAKING, BREAKING,
     "A bound moved outward (or a constraint was dropped).",
     _NOTHING + "every call that satisfied the old bound satisfies the new one.",
     "Results that the old bound excluded can now arrive, and consumers validating against it will reject them. Keep the bound, or widen it in a release consumers are told about.",
     "The {detail} constraint of {where} in the {side} of tool {entity} was loosened ({old} -> {new})."),
    ("constraint.tightened", BREAKING, NON_BREAKING,
     "A bound moved inward (`minLength`, `maximum`, `additionalProperties: false`, `uniqueItems`, `allOf` branch added, `anyOf` branch removed, an `allOf` branch removed where `unevaluatedProperties` refuses what it declared).",
     "Input that was valid is now rejected. Loosen the bound, or stage the change.",
     _NOTHING + "every result the new bound allows, the old one allowed too. Make sure the server really honours it.",
     "The {detail} constraint of {where} in the {side} of tool {entity} was tightened ({old} -> {new})."),
    ("default.changed", POTENTIALLY_BREAKING, POTENTIALLY_BREAKING,
     "A `default` was added, removed or changed. The schema still validates; the behaviour does not match.",
     "The schema still validates, but calls that omit this argument now behave differently. Check telemetry for how often it is omitted before shipping.",
     "Consumers that fill in the documented default when the field is absent now disagree with the server. Tell them, or keep the old default.",
     "The default of {where} in the {side} of tool {entity} {detail}."),
    ("deprecated.added", NON_BREAKING, NON_BREAKING,
     "`deprecated: true` appeared on a property.",
     "Check usage before removing it in a later release.",
     "Consumers should stop reading this field; check who still does before removing it in a later release.",
     "{where} in the {side} of tool {entity} is now deprecated."),
    ("deprecated.removed", NON_BREAKING, NON_BREAKING,
     "A property is no longer marked deprecated.",
     _NOTHING + "but tell callers who started migrating that the deprecation was withdrawn.",
     _NOTHING + "but tell consumers who started migrating that the deprecation was withdrawn.",
     "{where} in the {side} of tool {entity} is no longer deprecated."),
    ("description.changed", PROSE, PROSE,
     "A property or schema `description` **or** `title` changed. Models read these.",
     "Models read property descriptions when filling arguments. A changed one can change what gets passed.",
     "Models read result descriptions when interpreting what a tool returned. A changed one can change how a result is used.",
     "The {detail} of {where} in the {side} of tool {entity} changed."),
    ("dialect.changed", NON_BREAKING, NON_BREAKING,
     "The schema's notation changed (`$schema` dialect, `definitions` -> `$defs`, array `items` -> `prefixItems`, boolean `exclusiveMinimum`, inlined `$ref`) without changing what it accepts. Reported once; real differences are classified after normalisation.",
     _NOTHING + "validators that honour `$schema` still accept the same calls. Check hand-written validators support the new dialect.",
     _NOTHING + "the same results validate. Check code generators and validators on the consumer side support the new dialect.",
     "The {side} schema of tool {entity} changed notation ({detail})."),
    ("enum.narrowed", BREAKING, NON_BREAKING,
     "Values removed from an `enum` (or an `enum` appeared).",
     "Callers passing a removed value will now fail. Accept the old values and map them for one release.",
     _NOTHING + "consumers simply stop seeing the removed values.",
     "{where} in the {side} of tool {entity} no longer allows {detail}."),
    ("enum.widened", NON_BREAKING, BREAKING,
     "Values added to an `enum` (or the `enum` dropped).",
     _NOTHING + "callers may now send more values; every old value is still accepted.",
     "Consumers switching exhaustively on this enum will not handle the new values. Add a new field, or ship the new values in a major version.",
     "{where} in the {side} of tool {entity} now also allows {detail}."),
    ("header.changed", BREAKING, BREAKING,
     "`x-mcp-header` added, removed or changed: it alters how the call is transmitted over HTTP.",
     "x-mcp-header changes how the call is transmitted over HTTP, so intermediaries routing on the mirrored header will stop matching.",
     "x-mcp-header changes how the call is transmitted over HTTP, so intermediaries routing on the mirrored header will stop matching.",
     "The x-mcp-header of {where} in the {side} of tool {entity} changed from {old} to {new}."),
    ("property.added", NON_BREAKING, NON_BREAKING,
     "A new optional property.",
     _NOTHING + "existing calls omit it and stay valid.",
     _NOTHING + "consumers ignore fields they do not know.",
     "Property {where} was added to the {side} of tool {entity}."),
    ("property.addedRequired", BREAKING, NON_BREAKING,
     "A new property that is immediately required.",
     "Every existing call omits this property and will now fail validation. Add it as optional with a default, then require it a release later.",
     _NOTHING + "consumers gain a field that is always present.",
     "Required property {where} was added to the {side} of tool {entity}."),
    ("property.removed", BREAKING, BREAKING,
     "A property is gone.",
     "Accept and ignore the property for one release so existing callers keep working, then remove it.",
     "Keep returning the field until consumers stop reading it (empty, null or a frozen value), mark it deprecated, then remove it in a major version.",
     "Property {where} was removed from the {side} of tool {entity}."),
    ("required.added", BREAKING, NON_BREAKING,
     "Optional -> required.",
     "Accept calls that omit it for at least one release, applying the previous default, then require it.",
     _NOTHING + "a field that was optional is now guaranteed. Make sure every code path returns it.",
     "{where} in the {side} of tool {entity} is now required."),
    ("required.removed", NON_BREAKING, BREAKING,
     "Required -> optional.",
     _NOTHING + "calls that still send it are unaffected.",
     "Consumers may assume this field is always present in a result. Keep emitting it, or release the change as a major version.",
     "{where} in the {side} of tool {entity} is no longer required."),
    ("schema.changed", BREAKING, BREAKING,
     "**The completeness net.** A difference the structured walk does not model (an unmodelled keyword such as `not`, `unevaluatedProperties`, `$dynamicRef`, `dependentSchemas`, or a keyword no draft defines; `x-` vendor keys validate nothing and are not reported).",
     "This schema keyword is not modelled by the diff engine, so the change is reported as breaking until a human confirms otherwise.",
     "This schema keyword is not modelled by the diff engine, so the change is reported as breaking until a human confirms otherwise.",
     "An unmodelled part of the {side} schema of tool {entity} changed at {where}: {old} -> {new}."),
    ("type.changed", BREAKING, BREAKING,
     "Type sets are not comparable.",
     "The type sets are not comparable, so no existing caller is guaranteed to still work. Add a new property with the new type instead.",
     "The type sets are not comparable, so no existing consumer is guaranteed to still parse the result. Add a new field with the new type instead.",
     "The type of {where} in the {side} of tool {entity} changed from {old} to {new}."),
    ("type.narrowed", BREAKING, NON_BREAKING,
     "The `type` set shrank.",
     "Keep accepting the removed types and coerce them for one release.",
     _NOTHING + "every value returned now is of a type consumers already handle.",
     "The type of {where} in the {side} of tool {entity} narrowed from {old} to {new}."),
    ("type.widened", NON_BREAKING, BREAKING,
     "The `type` set grew.",
     _NOTHING + "every call that was valid still is.",
     "Consumers typed against the narrower schema will not handle the new types. Add a new field instead, or ship it in a major version.",
     "The type of {where} in the {side} of tool {entity} widened from {old} to {new}."),
]

_TOOL = [
    ("tool.added", NON_BREAKING,
     "A new tool appears.",
     _NOTHING + "a new tool is additive. Check its description does not steal selections from existing tools.",
     "Tool {entity} was added."),
    ("tool.annotations.added", POTENTIALLY_BREAKING,
     "An annotation appeared. Agents use these to decide whether to call.",
     "Confirm clients that filter tools by annotation still see this one.",
     "Annotation {where} of tool {entity} was added ({new})."),
    ("tool.annotations.changed", POTENTIALLY_BREAKING,
     "An annotation's value changed.",
     "Confirm clients that filter or rank tools by annotation still behave as intended.",
     "Annotation {where} of tool {entity} changed from {old} to {new}."),
    ("tool.annotations.removed", POTENTIALLY_BREAKING,
     "An annotation disappeared.",
     "A client filtering on this annotation will no longer match this tool.",
     "Annotation {where} of tool {entity} was removed (was {old})."),
    ("tool.annotations.safetyWeakened", POTENTIALLY_BREAKING,
     "`readOnlyHint`/`idempotentHint` left `true`, or `destructiveHint`/`openWorldHint` left `false`. The tool withdrew a promise. Escalate this rule to `BREAKING` in config if you gate on annotations.",
     "The tool withdrew a behavioural promise. Clients that auto-approve read-only or idempotent tools will now prompt, or worse, will have already auto-approved a tool that is no longer read-only. Set severity_overrides.tool.annotations.safetyWeakened to BREAKING if you gate on annotations.",
     "Tool {entity} withdrew the promise {where}: {old} -> {new}."),
    ("tool.description.changed", PROSE,
     "`description` changed. This is the primary tool-selection signal.",
     "The description is the primary tool-selection signal. Re-run your evaluations: a model may now pick this tool where it did not, or stop picking it where it did.",
     "The description of tool {entity} changed ({detail})."),
    ("tool.field.changed", POTENTIALLY_BREAKING,
     "A tool field the engine does not model (for example `execution`) was added, removed or changed.",
     "mcpdelta does not model this field, so it reports the change for a human to judge rather than ignore it.",
     "Field {where} of tool {entity} changed from {old} to {new}."),
    ("tool.icons.changed", DOCUMENTATION,
     "`icons` changed.",
     _NOTHING + "icons are display only.",
     "The icons of tool {entity} changed."),
    ("tool.meta.changed", NON_BREAKING,
     "`_meta` changed. Emitted for every `_meta` change; the MCP Apps keys are also interpreted by the `tool.ui.*` rules.",
     _NOTHING + "unless a client reads this key; the MCP Apps keys are reported by their own rules.",
     "The _meta of tool {entity} changed at {where}."),
    ("tool.removed", BREAKING,
     "A tool is gone.",
     "Keep the tool deprecated for at least one release. Review observed usage and unmeasured consumers before removal; no observed calls is not proof of no dependency.",
     "Tool {entity} was removed."),
    ("tool.renamed", BREAKING,
     "A removal and an addition share an identical schema fingerprint, one candidate each way. Reported as one change instead of two.",
     "Keep the old name as an alias that forwards to the new one for at least one release. Agents have the old name in their context and in cached tool lists.",
     "Tool {old} was renamed to {new}."),
    ("tool.title.changed", PROSE,
     "`title` changed. Clients display it; models read it.",
     "Clients display the title and models read it; check it still names what the tool does.",
     "The title of tool {entity} changed ({detail})."),
    ("tool.ui.resourceUri.added", NON_BREAKING,
     "The tool now links a `ui://` template, so hosts render its results with a UI.",
     _NOTHING + "hosts without MCP Apps support keep showing text.",
     "Tool {entity} now links UI template {new}."),
    ("tool.ui.resourceUri.changed", POTENTIALLY_BREAKING,
     "The tool links a different template. Hosts may have prefetched and cached the old one.",
     "Hosts may have prefetched and cached the old template. Keep serving the old URI for a release, and make sure the new template accepts the structuredContent this tool returns.",
     "Tool {entity} now links UI template {new} instead of {old}."),
    ("tool.ui.resourceUri.removed", POTENTIALLY_BREAKING,
     "The tool no longer links a UI template. Calls succeed; hosts fall back to text and users lose the UI.",
     "Hosts fall back to plain text, so calls still succeed, but users lose the UI they had. If this is intentional, say so in the release notes; otherwise restore `_meta.ui.resourceUri`.",
     "Tool {entity} no longer links UI template {old}."),
    ("tool.ui.visibility.narrowed", BREAKING,
     "The tool lost the `\"model\"` audience (hosts drop it from the agent's tool list) or the `\"app\"` audience (hosts reject the UI's calls).",
     "Without \"model\" the host takes the tool out of the agent's tool list, which is a removal for every agent; without \"app\" the host rejects calls from the UI. Keep the previous visibility for a release, or add a replacement first.",
     "The visibility of tool {entity} narrowed from {old} to {new}."),
    ("tool.ui.visibility.widened", NON_BREAKING,
     "The tool gained the `\"model\"` or `\"app\"` audience.",
     _NOTHING + "the tool is visible to more audiences. Check its description reads well to the new one.",
     "The visibility of tool {entity} widened from {old} to {new}."),
]


def _entity_rules(kind, label, extra):
    """Rules shared by resources and resource templates."""
    return [
        (f"{kind}.annotations.changed", POTENTIALLY_BREAKING,
         "`audience` / `priority` etc. changed.",
         "Annotations like audience and priority steer which resources a client surfaces.",
         f"The annotations of {label} {{entity}} changed at {{where}}."),
        (f"{kind}.description.changed", PROSE,
         "`description` changed.",
         "Models read the description to decide what to read. Re-run evaluations that depend on it.",
         f"The description of {label} {{entity}} changed ({{detail}})."),
        (f"{kind}.field.changed", POTENTIALLY_BREAKING,
         f"A {label} field the engine does not model was added, removed or changed.",
         "mcpdelta does not model this field, so it reports the change for a human to judge rather than ignore it.",
         f"Field {{where}} of {label} {{entity}} changed from {{old}} to {{new}}."),
        (f"{kind}.meta.changed", NON_BREAKING,
         "`_meta` changed." + extra,
         _NOTHING + "unless a client reads this key; the MCP Apps keys are reported by their own rules.",
         f"The _meta of {label} {{entity}} changed at {{where}}."),
        (f"{kind}.mimeType.changed", BREAKING,
         "The declared `mimeType` changed: a consumer parsing the body will fail.",
         "Consumers parsing the body by its declared type will fail. Serve the new type under a new URI, or keep the old one.",
         f"The mimeType of {label} {{entity}} changed from {{old}} to {{new}}."),
        (f"{kind}.name.changed", POTENTIALLY_BREAKING,
         "`name` changed. Models select resources by name.",
         "Models select resources by name; a rename changes what gets read.",
         f"The name of {label} {{entity}} changed from {{old}} to {{new}}."),
        (f"{kind}.title.changed", PROSE,
         "`title` changed.",
         "Clients display the title and models read it; check it still names the content.",
         f"The title of {label} {{entity}} changed ({{detail}})."),
    ]


_TEMPLATE = [
    ("resourceTemplate.added", NON_BREAKING,
     "A new `uriTemplate`.",
     _NOTHING + "a new template is additive.",
     "Resource template {entity} was added."),
    ("resourceTemplate.removed", BREAKING,
     "A `uriTemplate` is gone.",
     "Clients constructing URIs from this template will stop being able to. Keep it for a release, or redirect it.",
     "Resource template {entity} was removed."),
] + _entity_rules("resourceTemplate", "resource template", "")

_RESOURCE = [
    ("resource.added", NON_BREAKING,
     "A new resource URI.",
     _NOTHING + "a new resource is additive.",
     "Resource {entity} was added."),
    ("resource.removed", BREAKING,
     "A resource URI is gone.",
     "Clients holding this URI will start getting errors. Keep it, or redirect it.",
     "Resource {entity} was removed."),
    ("resource.ui.csp.narrowed", BREAKING,
     "An origin left a UI template's CSP list, so the host blocks the template's requests to it.",
     "The host builds the template's Content-Security-Policy from these lists, so requests to a removed origin are blocked. Remove the origin only after the template stops using it.",
     "UI template {entity} no longer allows {detail} in {where}."),
    ("resource.ui.csp.widened", NON_BREAKING,
     "An origin was added to a UI template's CSP list.",
     _NOTHING + "the template may reach more origins. Check each one is meant to be trusted.",
     "UI template {entity} now allows {detail} in {where}."),
    ("resource.ui.domain.changed", POTENTIALLY_BREAKING,
     "The UI template's dedicated origin was set, unset or changed. Anything keyed on the origin must follow.",
     "The template now runs on a different origin. Update anything keyed on the old one (OAuth redirect URIs, CORS and API-key allowlists) before releasing.",
     "The dedicated origin of UI template {entity} changed from {old} to {new}."),
    ("resource.ui.permissions.added", NON_BREAKING,
     "The template requests a new sandbox permission.",
     _NOTHING + "hosts will ask users for the new permission; say why in the release notes.",
     "UI template {entity} now requests permission {detail}."),
    ("resource.ui.permissions.removed", POTENTIALLY_BREAKING,
     "The template no longer requests a sandbox permission (`camera`, `microphone`, `geolocation`, `clipboardWrite`).",
     "The host stops granting this browser capability to the template. Confirm the template detects its absence instead of failing.",
     "UI template {entity} no longer requests permission {detail}."),
    ("resource.ui.widgetDescription.changed", PROSE,
     "`openai/widgetDescription` changed. ChatGPT puts it in the model's context when the template loads.",
     "ChatGPT puts this summary in the model's context when the template loads. Re-run any evaluation that depends on how the model talks about the UI.",
     "The widget description of UI template {entity} changed ({detail})."),
] + _entity_rules("resource", "resource", " Emitted for every `_meta` change, alongside any `resource.ui.*` rule.")

_PROMPT = [
    ("prompt.added", NON_BREAKING,
     "A new prompt.",
     _NOTHING + "a new prompt is additive.",
     "Prompt {entity} was added."),
    ("prompt.argument.added", NON_BREAKING,
     "A new optional argument.",
     _NOTHING + "existing invocations omit it and stay valid.",
     "Optional argument {where} was added to prompt {entity}."),
    ("prompt.argument.addedRequired", BREAKING,
     "A new required argument.",
     "Every existing invocation omits it. Add it as optional first.",
     "Required argument {where} was added to prompt {entity}."),
    ("prompt.argument.description.changed", PROSE,
     "An argument's `description` or `title` changed.",
     "Models and users read argument descriptions when filling them in. A changed one can change what gets passed.",
     "The {detail} of argument {where} of prompt {entity} changed."),
    ("prompt.argument.nowOptional", NON_BREAKING,
     "Required -> optional.",
     _NOTHING + "invocations that still pass it are unaffected.",
     "Argument {where} of prompt {entity} is no longer required."),
    ("prompt.argument.nowRequired", BREAKING,
     "Optional -> required.",
     "Accept invocations that omit it for at least one release.",
     "Argument {where} of prompt {entity} is now required."),
    ("prompt.argument.removed", BREAKING,
     "An argument is gone.",
     "Accept and ignore the argument for one release, then remove it.",
     "Argument {where} was removed from prompt {entity}."),
    ("prompt.description.changed", PROSE,
     "`description` changed.",
     "Models and users pick prompts by their description. Re-run evaluations that depend on it.",
     "The description of prompt {entity} changed ({detail})."),
    ("prompt.field.changed", POTENTIALLY_BREAKING,
     "A prompt field the engine does not model (for example `_meta` or `icons`) was added, removed or changed.",
     "mcpdelta does not model this field, so it reports the change for a human to judge rather than ignore it.",
     "Field {where} of prompt {entity} changed from {old} to {new}."),
    ("prompt.removed", BREAKING,
     "A prompt is gone.",
     "Clients invoking this prompt by name will start getting errors. Keep it for a release.",
     "Prompt {entity} was removed."),
    ("prompt.title.changed", PROSE,
     "`title` changed.",
     "Clients display the title and models read it; check it still names what the prompt does.",
     "The title of prompt {entity} changed ({detail})."),
]


# Probe calls made at capture time, compared by response shape (covariant:
# the caller reads the response). {where} is the probe, {detail} the JSON
# pointer into its response.
_BEHAVIOUR = [
    ("tool.behaviour.probe.removed", POTENTIALLY_BREAKING,
     "A probe the old capture ran has no counterpart in the new one (the tool is gone, or was renamed).",
     "The call's behaviour can no longer be compared. If the tool was renamed, keep the old name as an alias for a release.",
     "Probe {where} of tool {entity} was not run on the new version."),
    ("tool.behaviour.error.started", BREAKING,
     "The same call succeeded before and now fails (a tool error, a protocol error or a timeout).",
     "Callers that made this exact call now get an error. Accept the old arguments, or fail with an actionable message for one release.",
     "Probe {where} of tool {entity} now fails ({new}): {detail}"),
    ("tool.behaviour.error.stopped", NON_BREAKING,
     "The same call failed before and now succeeds.",
     _NOTHING + "a call that used to fail now returns a result.",
     "Probe {where} of tool {entity} now succeeds (was {old})."),
    ("tool.behaviour.content.removed", BREAKING,
     "A kind of content block (or `structuredContent`) the response carried is gone.",
     "Callers reading that block get nothing. Keep emitting it beside the new one for a release.",
     "The response of probe {where} of tool {entity} no longer carries {old} ({detail})."),
    ("tool.behaviour.content.added", NON_BREAKING,
     "The response carries a new kind of content block (or `structuredContent`).",
     _NOTHING + "readers that do not know the new block skip it.",
     "The response of probe {where} of tool {entity} now carries {new} ({detail})."),
    ("tool.behaviour.field.removed", BREAKING,
     "A field every old response carried is missing from the new one.",
     "Results that carried the field no longer do: readers of it fail. Keep the field (deprecated) for a release.",
     "The response of probe {where} of tool {entity} lost field {detail}."),
    ("tool.behaviour.field.added", NON_BREAKING,
     "The response has a new field.",
     _NOTHING + "readers ignore fields they do not know.",
     "The response of probe {where} of tool {entity} gained field {detail}."),
    ("tool.behaviour.field.nowOptional", BREAKING,
     "A field every old array element carried is missing from some new ones.",
     "Readers that relied on the field being present fail on the elements without it. Always send it, null if need be.",
     "Field {detail} of the response of probe {where} of tool {entity} is now missing from some elements."),
    ("tool.behaviour.type.changed", BREAKING,
     "A value in the response has another JSON type (an array became an object, JSON text became prose, ...).",
     "Readers parse the old type and fail on the new one. Return the old type, or add the new value under a new name.",
     "At {detail}, the response of probe {where} of tool {entity} changed type from {old} to {new}."),
    ("tool.behaviour.format.changed", POTENTIALLY_BREAKING,
     "A string in the response lost its format class (a date-time, uuid, uri or email became another kind of string).",
     "Readers that parse the format may fail; check the new values still parse as before.",
     "At {detail}, the response of probe {where} of tool {entity} changed format from {old} to {new}."),
    ("tool.behaviour.outputSchema.violated", BREAKING,
     "`structuredContent` no longer conforms to the tool's own declared `outputSchema`.",
     "The specification says structured results MUST conform; clients that validate reject this result. Fix the result or the schema.",
     "The structured result of probe {where} of tool {entity} violates its outputSchema: {new}."),
]


def _build() -> dict:
    rules = {}

    def add(category, rows):
        for rid, severity, summary, note, message in rows:
            assert rid not in rules, rid
            rules[rid] = Rule(rid, severity, category, summary, note, message)

    add("server", _SERVER)
    for side, schema in (("input", "inputSchema"), ("output", "outputSchema")):
        rows = []
        for suffix, in_sev, out_sev, summary, in_note, out_note, message in _SCHEMA:
            rows.append((
                f"tool.{side}.{suffix}",
                in_sev if side == "input" else out_sev,
                summary.replace("{schema}", schema),
                in_note if side == "input" else out_note,
                message.replace("{schema}", schema),
            ))
        add(f"tool.{side}", rows)
    add("tool", _TOOL)
    add("resourceTemplate", _TEMPLATE)
    add("resource", _RESOURCE)
    add("prompt", _PROMPT)
    add("tool.behaviour", _BEHAVIOUR)
    return dict(sorted(rules.items()))


RULES: dict = _build()
