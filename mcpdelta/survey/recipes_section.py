"""What the write-up says about the recipes the captures ran under, from
``sql/study/recipes.sql``: one item of its *Method*, and one line per server
in *Every release*. Like the rest of the page it only lays out what the
query returned."""

from mcpdelta.survey import cells

def recipes_item(rows) -> str:
    """The Method section's item on recipes."""
    total = next((r for r in rows["recipes"] if r["level"] == "all"), None)
    if not total or not total["servers"]:
        return "- **Recipes.** No capture was attempted."
    item = ("- **Recipes.** Each capture records the recipe it ran under (`mcpdelta/crawl/recipe.py`): the "
            "argument list, the names of the environment variables it set (never their values), its fixture "
            "files, and a hash of them all with the values as written in the servers file (`recipes.sql`). "
            f"The captures of {total['recorded_versions']} of {cells.count(total['versions'], 'version')} attempted "
            f"recorded one, for {total['recorded_servers']} of {cells.count(total['servers'], 'server')}")
    unrecorded = total["versions"] - total["recorded_versions"]
    if unrecorded:
        item += (f" (the other {cells.count(unrecorded, 'version')} were attempted by crawls that predate the "
                 "record: their steps cannot be checked for a change of recipe)")
    item += f"; {cells.count(total['several_recipes'], 'server')} ran under more than one recipe."
    notes = {}
    for r in rows["recipes"]:
        if r["level"] == "recipe" and r["tool_set"]:
            notes.setdefault(r["server_id"], r["tool_set"])
    if not notes:
        return item + " No recipe notes a tool set that depends on configuration."
    return item + (" Where a server's tool set depends on its configuration, its recipe enables the fullest set "
                   f"it can offline, as its note says ({cells.count(total['tool_set_servers'], 'server')}; "
                   "each note in tables.md).")


def tool_set_notes(rows) -> str:
    """Each server whose tool set depends on its configuration, with its
    recipe's note (the tables)."""
    notes = {}
    for r in rows["recipes"]:
        if r["level"] == "recipe" and r["tool_set"]:
            notes.setdefault(r["server_id"], r["tool_set"])
    lines = ["## Tool sets that depend on configuration", "",
             "`recipes.sql`: the servers whose recipe enables the fullest tool set they offer offline, "
             "as each recipe's note says.", ""]
    return "\n".join(lines + [f"- {server}: {cells.cell(note, 600)}" for server, note in sorted(notes.items())]
                     or lines + ["- none"])


def recipe_lines(rows, server) -> list:
    """*Every release*'s line(s) on the recipes one server's captures ran under."""
    lines = []
    for r in rows["recipes"]:
        if r["level"] != "recipe" or r["server_id"] != server:
            continue
        args = " ".join(r["args"] or []) or "(none)"
        env = ", ".join(r["env"] or []) or "(none)"
        fixtures = ", ".join(f"`{f}`" for f in r["fixtures"] or []) or "(none)"
        lines.append(f"Recipe `{r['recipe_hash'][:19]}` ({r['captured']} of {cells.count(r['attempted'], 'version')} "
                     f"attempted under it captured): arguments `{cells.cell(args, 300)}`; environment "
                     f"{cells.cell(env, 300)}; fixtures {fixtures}.")
    return lines
