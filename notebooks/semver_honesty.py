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
# # Semver honesty
#
# Does a server's version number admit what its contract did? For every
# release step (a release and the one before it, in version order) whose
# contracts were diffed or are identical, `sql/semver_honesty.sql` sets the
# bump the version number declared against the grade the changes earned
# (`major` if anything broke). The declared bump is read as Cargo reads
# semver, in `sql/release_steps.sql`: below 1.0.0, 0.3 -> 0.4 and
# 0.0.3 -> 0.0.4 are major (`bumped` is the number that literally moved).
# A release that declared less than it earned is *under-bumped*: breaking
# changes shipped as a minor or patch release. An identical step (grade
# `none`) is honest under any bump.
#
# A calendar version (a year as the major number: 2025.9.25 -> 2025.11.25,
# `scheme` `calver`) promises nothing, so it declares `calver`, not a bump,
# and is neither honest nor under-bumped; a version that does not parse
# declares `unknown`, likewise. Steps whose releases were captured with more
# than one contract (unstable) are left out: their grade may be capture noise.
#
# Build a lake first: `mcpdelta survey` at the repository's top writes
# `lake/` there (the demo servers), which the default below, `../lake`,
# reads from this folder. Point `LAKE` (or MCPDELTA_LAKE) elsewhere for
# another lake; a missing lake stops at the first cell, as the CLI does.

# %% tags=["parameters"]
import os

LAKE = os.environ.get("MCPDELTA_LAKE", "../lake")  # the lake folder or URI to read
SERVERS = []  # server ids or globs (["acme-*"]) to keep; empty: every server

# %%
# %matplotlib inline
import polars as pl

from mcpdelta.survey.queries import frame, open_lake, scope_of
from mcpdelta.survey.report import GRADES, plot_semver_honesty

pl.Config.set_tbl_rows(30)
con = open_lake(LAKE, SERVERS)
print("engine %s, policy %s" % scope_of(con))
pairs = frame(con, "semver_honesty")
pairs

# %% [markdown]
# ## Declared bump against computed grade
#
# Rows: the bump the version number declared; columns: the grade the
# changes earned. Above the diagonal (earned more than declared) is an
# under-bump. Calendar (`calver`) and unparsed (`unknown`) versions are rows
# of their own: they declare no bump, whatever grade their changes earned.

# %%
order = list(GRADES)
declared_order = pl.Enum(order + ["calver", "unknown"])
crosstab = (pairs.with_columns(pl.col("declared").cast(declared_order))
            .pivot(on="grade", index="declared", values="server_id", aggregate_function="len")
            .fill_null(0).sort("declared"))
crosstab.select("declared", *[g for g in order if g in crosstab.columns])

# %%
plot_semver_honesty(pairs)

# %% [markdown]
# ## Per server
#
# How many of each server's release steps were honest, how many
# under-bumped, and the share of honest ones (steps whose version declares no
# bump, calendar or unparsed, are left out).

# %%
(pairs.filter(pl.col("honest").is_not_null())
 .group_by("server_id")
 .agg(steps=pl.len(), honest=pl.col("honest").sum(),
      under_bumped=(~pl.col("honest")).sum())
 .with_columns(honest_share=(pl.col("honest") / pl.col("steps")).round(2))
 .sort(["under_bumped", "server_id"], descending=[True, False]))

# %% [markdown]
# ## The under-bumped releases
#
# Each release that shipped more than it declared, with the first release
# from it on that declared a major bump and how many days after it was
# captured (`null`: no major bump captured yet).

# %%
pairs.filter(pl.col("honest") == False).select(  # noqa: E712 (a Polars expression)
    "server_id", "old_version", "new_version", "scheme", "declared", "bumped", "grade",
    "next_major",
    "days_to_next_major")

# %% [markdown]
# ## Servers whose latest release broke something
#
# (`sql/latest_release_breaks.sql`)

# %%
frame(con, "latest_release_breaks")
