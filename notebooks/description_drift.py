# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Description drift
#
# Descriptions, titles and instructions are what a model reads to decide
# which tool to call and how. `sql/description_drift.sql` lists every prose
# change per server over releases, with the prose classifier's verdict
# (`DOCUMENTATION`: too small to move a model; `POTENTIALLY_BREAKING`: it
# may) and both texts.
#
# Build a lake first: `mcpdelta survey` at the repository's top writes
# `lake/` there (the demo servers), which the default below, `../lake`,
# reads from this folder. Point `LAKE` (or MCPDELTA_LAKE) elsewhere for
# another lake; a missing lake stops at the first cell, as the CLI does.

# %% tags=["parameters"]
import os

LAKE = os.environ.get("MCPDELTA_LAKE", "../lake")  # the lake folder or URI to read
SERVERS = []  # server ids or globs (["acme-*"]) to keep; empty: every server
SHOW = 20  # how many text diffs to print

# %%
# %matplotlib inline
import difflib
import json

import polars as pl

from mcpdelta.survey.queries import frame, open_lake, scope_of
from mcpdelta.survey.report import plot_description_drift

pl.Config.set_tbl_rows(30)
pl.Config.set_fmt_str_lengths(80)
con = open_lake(LAKE, SERVERS)
print("engine %s, policy %s" % scope_of(con))


def text(value):
    """A change's stored JSON value as prose ("" when absent)."""
    if value is None:
        return ""
    loaded = json.loads(value)
    return loaded if isinstance(loaded, str) else json.dumps(loaded)


drift = frame(con, "description_drift").with_columns(
    old=pl.col("old_text").map_elements(text, return_dtype=pl.String),
    new=pl.col("new_text").map_elements(text, return_dtype=pl.String),
)
drift.select("server_id", "entity", "rule", "old_version", "new_version", "verdict")

# %% [markdown]
# ## How much prose moves, and how much of it matters
#
# Per rule and verdict; the length columns are characters, summed.

# %%
(drift.group_by("rule", "verdict")
 .agg(changes=pl.len(), servers=pl.col("server_id").n_unique(),
      chars_before=pl.col("old").str.len_chars().sum(),
      chars_after=pl.col("new").str.len_chars().sum())
 .sort(["changes", "rule"], descending=[True, False]))

# %%
plot_description_drift(drift)

# %% [markdown]
# ## Per server over releases
#
# Prose changes each release brought, by verdict.

# %%
(drift.group_by("server_id", "new_version", "verdict", maintain_order=True)
 .agg(changes=pl.len(), entities=pl.col("entity").unique().sort().str.join(", ")))

# %% [markdown]
# ## The texts
#
# Word-level diffs, the changes the classifier judged most likely to move a
# model first: `[-removed-]` and `{+added+}`.

# %%
def word_diff(old, new):
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
        if op == "equal":
            out.append(" ".join(a[i1:i2]))
    return " ".join(out)


ranked = drift.sort(pl.col("verdict") != "POTENTIALLY_BREAKING", "server_id", "new_version")
for row in ranked.head(SHOW).iter_rows(named=True):
    print(f"{row['server_id']} {row['old_version']} -> {row['new_version']}  {row['rule']}  "
          f"{row['entity'] or '(server)'}  [{row['verdict']}]")
    print("    " + word_diff(row["old"], row["new"]))
if drift.is_empty():
    print("no prose changed in this lake")
