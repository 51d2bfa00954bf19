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
# # Rule frequencies
#
# Which rules fire most across the surveyed servers, at which severity; how
# the severity mix moves over crawl dates or releases; which servers break
# most. Every table comes from a query under `sql/`, run by DuckDB on the
# lake and handed to Polars; every figure is the one `mcpdelta report` draws.
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
from mcpdelta.survey.report import plot_breaking_by_version, plot_rule_frequencies, plot_severity_mix

pl.Config.set_tbl_rows(30)
pl.Config.set_fmt_str_lengths(60)
con = open_lake(LAKE, SERVERS)
print("engine %s, policy %s" % scope_of(con))

# %% [markdown]
# ## Changes by severity
#
# Unsuppressed changes per effective severity, and how many a policy
# suppressed (`sql/severity_totals.sql`).

# %%
frame(con, "severity_totals").sort("changes", descending=True)

# %% [markdown]
# ## Which rules fire most
#
# One row per rule and effective severity, with the number of servers and
# version pairs it fired in (`sql/rule_frequencies.sql`).

# %%
rules = frame(con, "rule_frequencies")
rules

# %%
plot_rule_frequencies(rules)

# %% [markdown]
# ## By surface
#
# Rules grouped by the surface they describe (`tool.input`, `tool.output`,
# `prompt`, `server`, ...): where contracts move, and how dangerously.

# %%
surfaces = (
    rules.with_columns(
        surface=pl.when(pl.col("rule").str.starts_with("tool.input")
                        | pl.col("rule").str.starts_with("tool.output"))
        .then(pl.col("rule").str.split(".").list.slice(0, 2).list.join("."))
        .otherwise(pl.col("rule").str.split(".").list.first()))
    .pivot(on="severity", index="surface", values="changes", aggregate_function="sum")
    .fill_null(0)
)
severities = ["BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING", "DOCUMENTATION"]
surfaces = surfaces.with_columns(pl.lit(0).alias(s) for s in severities if s not in surfaces.columns)
surfaces.select("surface", *severities).with_columns(
    total=pl.sum_horizontal(severities)).sort("total", descending=True)

# %% [markdown]
# ## How the severity mix moves
#
# The share of each severity among the changes that arrived, by crawl date
# when the captures span several days (nightly crawls), else by each
# server's n-th release in version order (a package version sweep).

# %%
releases = frame(con, "analysis/severity_by_release")
plot_severity_mix(releases)

# %% [markdown]
# ## Which servers break most
#
# Breaking changes per server, summed over its releases
# (`sql/breaking_by_version.sql`), and each server's breaks release by release.

# %%
by_version = frame(con, "breaking_by_version")
(by_version.group_by("server_id")
 .agg(releases=pl.len(), breaking=pl.col("breaking").sum(), changes=pl.col("changes").sum(),
      releases_that_broke=(pl.col("breaking") > 0).sum())
 .sort(["breaking", "server_id"], descending=[True, False]))

# %%
plot_breaking_by_version(by_version)
