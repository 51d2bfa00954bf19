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
# # Server timeline
#
# One server's contract history: every captured release in version order,
# the changes each brought by severity, the bump its version number
# declared (under-bumps in red), and the breaking changes themselves. With
# no server filter, the servers with the most changes are drawn.
#
# Build a lake first: `mcpdelta survey` at the repository's top writes
# `lake/` there (the demo servers), which the default below, `../lake`,
# reads from this folder. Point `LAKE` (or MCPDELTA_LAKE) elsewhere for
# another lake; a missing lake stops at the first cell, as the CLI does.

# %% tags=["parameters"]
import os

LAKE = os.environ.get("MCPDELTA_LAKE", "../lake")  # the lake folder or URI to read
SERVERS = []  # server ids or globs (["acme-*"]) to keep; empty: every server
LIMIT = 6  # with no filter: how many servers to draw (the ones that changed most)

# %%
# %matplotlib inline
import polars as pl

from mcpdelta.survey.queries import frame, open_lake, scope_of
from mcpdelta.survey.report import plot_server_timeline

pl.Config.set_tbl_rows(40)
pl.Config.set_fmt_str_lengths(70)
con = open_lake(LAKE, SERVERS)
print("engine %s, policy %s" % scope_of(con))
releases = frame(con, "analysis/severity_by_release")
semver = frame(con, "semver_honesty")
releases.select(pl.col("server_id").n_unique().alias("servers"),
                pl.struct("server_id", "version").n_unique().alias("releases"))

# %%
plot_server_timeline(releases, semver, limit=LIMIT)

# %% [markdown]
# ## Release by release
#
# Changes per severity for each release, with the declared bump and the
# grade it earned (`sql/semver_honesty.sql`; a repeat of the release before
# earned `none`). `null` on the first capture, and on a release whose step
# that table leaves out: its contracts unstable, or its diff failed or not
# run yet. A calendar version declares `calver`: no bump, honest `null`.

# %%
severities = ["BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING", "DOCUMENTATION"]
table = (releases.with_columns(pl.col("severity").fill_null("none"))
         .pivot(on="severity", index=["server_id", "position", "version", "captured_at"],
                values="changes", aggregate_function="sum")
         .fill_null(0))
table = table.with_columns(*[pl.lit(0).alias(s) for s in severities if s not in table.columns])
(table.join(semver.select("server_id", "new_version", "declared", "grade", "honest"),
            left_on=["server_id", "version"], right_on=["server_id", "new_version"], how="left")
 .select("server_id", "position", "version", *severities, "declared", "grade", "honest")
 .sort("server_id", "position"))

# %% [markdown]
# ## The breaking changes
#
# (`sql/breaking_changes.sql`)

# %%
frame(con, "breaking_changes").select("server_id", "old_version", "new_version", "rule",
                                      "entity", "message")
