"""The survey's figures: plain functions from query rows to a matplotlib
``Figure`` (no pyplot state), shared by the survey's page
(``survey/documents.py``), ``mcpdelta report --format png``, the study's
write-up and the notebooks under ``notebooks/``: one source for each
picture. Each takes the rows of its queries (``survey/queries.py``) as a
list of dicts or a Polars DataFrame.
"""

import dataclasses
import decimal
import pathlib

from mcpdelta.engine.catalog import SEVERITIES

COLOURS = {"BREAKING": "#c62828", "POTENTIALLY_BREAKING": "#ef6c00",
           "NON_BREAKING": "#2e7d32", "DOCUMENTATION": "#1565c0"}
# BREAKING split by what stands behind each change (mcpdelta/witness/evidence.py)
EVIDENCE_COLOURS = {"proven": "#c62828", "by_rule": "#e57373", "unexplained": "#f4c7c3"}
EVIDENCE_LABELS = {"proven": "BREAKING, proven", "by_rule": "BREAKING, by rule",
                   "unexplained": "BREAKING, unexplained"}
# the semver heatmap's cells: no step, honest, under-bumped, declares no bump
# (calver, unknown): white, green, red, blue, told apart at a glance
HONESTY_COLOURS = ("#ffffff", "#2e7d32", "#c62828", "#3f51b5")
GRADES = ("none", "patch", "minor", "major")
# what ``semver_honesty`` declares for a version that promises no bump: a
# calendar version, and one that does not parse (sql/release_steps.sql)
DECLARES_NOTHING = ("calver", "unknown")


def _rows(data) -> list:
    """A figure's input as a list of dicts: Polars frames are accepted."""
    if data is None:
        return []
    rows = data.to_dicts() if hasattr(data, "to_dicts") else list(data)
    return [{k: _plain(v) for k, v in row.items()} for row in rows]


def _plain(value):
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _empty(axis, text="no data in this lake"):
    axis.text(0.5, 0.5, text, ha="center", va="center", transform=axis.transAxes, color="#666")
    axis.set_xticks([])
    axis.set_yticks([])


# legends beside the axes, never over the bars
_LEGEND_RIGHT = {"loc": "upper left", "bbox_to_anchor": (1.01, 1), "borderaxespad": 0,
                 "fontsize": "small"}


def _integer_ticks(axis):
    """Whole-number ticks on a count axis (left alone once emptied)."""
    from matplotlib.ticker import MaxNLocator

    if isinstance(axis.get_major_locator(), MaxNLocator):
        axis.get_major_locator().set_params(integer=True)


def _label(text) -> str:
    """A value from the lake as figure text: one line, and a dollar sign a
    dollar sign (two would start matplotlib's math text, which can fail to parse)."""
    from mcpdelta.safe import visible

    return visible(text).replace("$", r"\$")


def _labels(names, width=30) -> list:
    """Axis labels for server ids: long ones shortened in the middle (the
    distinguishing tail of "@scope/server-foo" survives); full ids when
    shortening would make two labels alike."""
    names = [str(n) for n in names]
    keep = (width - 1) // 2
    short = [n if len(n) <= width else n[:keep] + "…" + n[-(width - 1 - keep):] for n in names]
    return [_label(n) for n in (short if len(set(short)) == len(set(names)) else names)]


def _stacked_bars(axis, labels, counts_by_label) -> list:
    """Horizontal bars, one per label, stacked by severity in catalog order,
    BREAKING split by evidence where a label's counts give it (keys
    ``proven``, ``by_rule``, ``unexplained``); returns each bar's total."""
    left = [0] * len(labels)
    for severity in SEVERITIES:
        split = severity == "BREAKING" and any(k in c for c in counts_by_label for k in EVIDENCE_COLOURS)
        for key in (EVIDENCE_COLOURS if split else (severity,)):
            part = [c.get(key, 0) for c in counts_by_label]
            if any(part):
                colour = EVIDENCE_COLOURS.get(key, COLOURS[severity]) if split else COLOURS[severity]
                axis.barh(labels, part, left=left, color=colour, label=EVIDENCE_LABELS.get(key, severity))
            left = [a + b for a, b in zip(left, part)]
        if split:  # a BREAKING count no evidence column accounts for (rows of an older query)
            rest = [c.get(severity, 0) - sum(c.get(k, 0) for k in EVIDENCE_COLOURS) for c in counts_by_label]
            if any(rest):
                axis.barh(labels, rest, left=left, color=COLOURS[severity], label=severity)
            left = [a + b for a, b in zip(left, rest)]
    return left


def _break_at(totals) -> float | None:
    """Where to cut a count axis so one spike does not flatten the rest: past
    the second-largest value when the largest is over three times it."""
    ranked = sorted(totals)
    if len(ranked) >= 2 and ranked[-2] > 0 and ranked[-1] > 3 * ranked[-2]:
        return ranked[-2] * 1.6
    return None


def plot_rule_frequencies(rules, top=25):
    """Horizontal bars: unsuppressed changes per rule, stacked by severity,
    BREAKING split into proven / by rule / unexplained (rows of
    ``rule_frequencies``); the ``top`` most frequent rules, each with its total. A bar more than three times the next is cut at the
    axis (a broken scale) and says its total there."""
    by_rule = {}
    for row in _rows(rules):
        counts = by_rule.setdefault(row["rule"], {})
        counts[row["severity"]] = row["changes"]
        if row["severity"] == "BREAKING" and row.get("proven") is not None:
            counts.update({k: row.get(k) or 0 for k in EVIDENCE_COLOURS})
    total = lambda r: sum(by_rule[r].get(s, 0) for s in SEVERITIES)  # noqa: E731
    ranked = sorted(by_rule, key=lambda r: (total(r), r))
    shown = ranked[-top:]
    figure = _figure(9, 0.32 * max(len(shown), 3) + 1.6)
    axis = figure.subplots()
    if not shown:
        _empty(axis)
    left = _stacked_bars(axis, [_label(r) for r in shown], [by_rule[r] for r in shown])
    if shown:
        cut = _break_at(left)
        limit = cut or max(left) * 1.12
        axis.set_xlim(0, limit)
        for y, total in enumerate(left):
            if cut and total > cut:
                axis.annotate(f"{total} ▸ (axis cut)", (limit, y), xytext=(-4, 0), textcoords="offset points",
                              ha="right", va="center", fontsize="x-small", color="white", fontweight="bold")
            else:
                axis.annotate(str(total), (total, y), xytext=(3, 0), textcoords="offset points",
                              va="center", fontsize="x-small")
    axis.set_xlabel("changes (unsuppressed)")
    axis.set_ylabel("rule")
    _integer_ticks(axis.xaxis)
    more = f" (top {len(shown)} of {len(ranked)})" if len(ranked) > len(shown) else ""
    axis.set_title("Rule frequencies by severity" + more)
    if shown:
        axis.legend(**_LEGEND_RIGHT)
    return figure


SHORT_SPAN_DAYS = 2  # dates closer than this are one crawl's capture times, not a history


def plot_breaking_by_version(rows, top=10):
    """One row per server (the ``top`` that broke most, most first), one mark
    per release at the date it came out (rows of ``breaking_by_version``:
    the publish date, else the first capture): a disc whose area grows with
    the breaking changes the release shipped, or a small grey dot for a
    release that broke nothing. Where the rows give ``proven`` (a witness a
    validator confirmed), the disc is light red for every break with a dark
    red core for the proven ones, labelled "proven/all", and servers rank
    by proven breaks first. Rows never cross and each count sits in its own
    row; where releases sit too close for every count, the larger releases
    keep theirs. When every date falls within ``SHORT_SPAN_DAYS`` (captures of one
    crawl, no publish dates), a time axis would read in seconds: releases
    stand in version order instead, each named under its mark."""
    import datetime as dt
    import math

    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    from matplotlib.lines import Line2D

    servers = {}
    for row in _rows(rows):  # in version order per server (the query's order)
        if row.get("released_at") is not None:
            servers.setdefault(row["server_id"], []).append(row)
    split = any(r.get("proven") is not None for rs in servers.values() for r in rs)
    proven = (lambda r: r.get("proven") or 0) if split else (lambda r: r["breaking"] or 0)  # noqa: E731
    ranked = sorted(servers, key=lambda s: (-sum(proven(r) for r in servers[s]),
                                             -sum(r["breaking"] or 0 for r in servers[s]), s))[:top]
    figure = _figure(9, 0.55 * max(len(ranked), 3) + 1.9)
    axis = figure.subplots()
    title = "Breaking changes per release, by server" + (" (proven/all)" if split else "")
    if not ranked:
        _empty(axis)
        axis.set_title(title)
        return figure
    dates = [r["released_at"] for s in ranked for r in servers[s]]
    by_date = max(dates) - min(dates) >= dt.timedelta(days=SHORT_SPAN_DAYS)
    most = max((r["breaking"] or 0) for s in ranked for r in servers[s]) or 1
    largest = sorted(((r["breaking"] or 0, s, r["version"]) for s in ranked for r in servers[s]),
                     reverse=True)[:4]
    named = {(s, v) for n, s, v in largest if n > 0}

    def area(n: int) -> float:
        return 40 + 560 * math.sqrt(n / most)

    counts = []  # (priority, label): the most breaking releases keep theirs first
    for y, server in enumerate(reversed(ranked)):
        series = servers[server]
        xs = [r["released_at"] for r in series] if by_date else list(range(len(series)))
        axis.plot([xs[0], xs[-1]], [y, y], color="#dddddd", linewidth=1, zorder=1)
        quiet = [x for x, r in zip(xs, series) if not r["breaking"]]
        axis.scatter(quiet, [y] * len(quiet), s=14, color="#9e9e9e", zorder=2)
        for x, r in zip(xs, series):
            n = r["breaking"] or 0
            size = area(n) if n else 14
            if n:
                outer = EVIDENCE_COLOURS["by_rule"] if split else COLOURS["BREAKING"]
                axis.scatter([x], [y], s=size, color=outer, alpha=0.85, zorder=3,
                             edgecolors="white", linewidths=0.5)
                if split and proven(r):  # the core's area is the proven share of the disc's
                    axis.scatter([x], [y], s=size * proven(r) / n, color=EVIDENCE_COLOURS["proven"],
                                 zorder=4, linewidths=0)
                count = f"{proven(r)}/{n}" if split else str(n)
                text = f"{r['version']}: {count}" if by_date and (server, r["version"]) in named else count
                counts.append(((-proven(r), -n), axis.annotate(
                    text, (x, y), xytext=(0, 7 + math.sqrt(size) / 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize="x-small", color="#333")))
            if not by_date:
                axis.annotate(str(r["version"]), (x, y), xytext=(0, -3 - math.sqrt(size) / 2),
                              textcoords="offset points",
                              ha="center", va="top", fontsize="xx-small", color="#555")
    axis.set_yticks(range(len(ranked)), _labels(list(reversed(ranked))))
    axis.set_ylim(-0.8, len(ranked) - 0.2)
    axis.margins(x=0.06)
    if by_date:
        locator = AutoDateLocator()
        axis.xaxis.set_major_locator(locator)
        axis.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        axis.set_xlabel("release date (publish date; capture date when unknown)")
    else:
        axis.set_xticks([])
        axis.set_xlabel(f"releases in version order (all captured on {min(dates):%Y-%m-%d}; no publish dates)")
    if split:
        axis.legend(handles=[Line2D([], [], marker="o", linestyle="", color=EVIDENCE_COLOURS[key], label=label)
                             for key, label in (("proven", "proven"), ("by_rule", "every breaking change"))],
                    **_LEGEND_RIGHT)
    more = f" (top {len(ranked)} of {len(servers)})" if len(servers) > len(ranked) else ""
    axis.set_title(title + more)
    for side in ("top", "right", "left"):
        axis.spines[side].set_visible(False)
    axis.tick_params(axis="y", length=0)
    _drop_crowded(figure, [label for _, label in sorted(counts, key=lambda c: c[0])])
    return figure


def _drop_crowded(figure, labels) -> None:
    """Keep each label, in the order given, that overlaps none kept before;
    remove the rest (releases days apart: their discs still show them)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)  # the layout the saved figure will have
    kept = []
    for label in labels:
        box = label.get_window_extent(renderer).padded(3)  # a gap between two labels, in pixels
        if any(box.overlaps(other) for other in kept):
            label.remove()
        else:
            kept.append(box)


def plot_severity_mix(releases, top=20):
    """100 %-stacked bars, one per server: the severity mix of every
    unsuppressed change its releases brought, ``n`` the number of changes
    (rows of ``analysis/severity_by_release``); the ``top`` servers with the
    most changes. Servers are never pooled: one server's large release
    cannot stand for another's."""
    counts = {}
    for r in _rows(releases):
        if r["severity"] is not None and r["changes"]:
            server = counts.setdefault(r["server_id"], {})
            server[r["severity"]] = server.get(r["severity"], 0) + r["changes"]
    ranked = sorted(counts, key=lambda s: (sum(counts[s].values()), s))[-top:]
    figure = _figure(9, 0.36 * max(len(ranked), 3) + 1.6)
    axis = figure.subplots()
    if not ranked:
        _empty(axis)
        axis.set_title("Severity mix per server")
        return figure
    labels = _labels(ranked)
    totals = [sum(counts[s].values()) for s in ranked]
    left = [0.0] * len(ranked)
    for severity in SEVERITIES:
        share = [100.0 * counts[s].get(severity, 0) / t for s, t in zip(ranked, totals)]
        if any(share):
            axis.barh(labels, share, left=left, color=COLOURS[severity], label=severity, height=0.7)
        left = [a + b for a, b in zip(left, share)]
    for y, total in enumerate(totals):
        axis.annotate(f"n={total}", (100, y), textcoords="offset points", xytext=(4, 0),
                      va="center", fontsize="x-small")
    axis.set_xlim(0, 112)
    axis.set_xlabel("share of the server's changes (%)")
    axis.set_ylabel("server")
    more = f" (top {len(ranked)} of {len(counts)})" if len(counts) > len(ranked) else ""
    axis.set_title("Severity mix per server" + more)
    axis.legend(**_LEGEND_RIGHT)
    return figure


def plot_semver_honesty(pairs, top=15):
    """Left: declared version bump against the grade the changes earned
    (rows of ``semver_honesty``); cells above the diagonal under-bumped.
    Versions that declare no bump have rows of their own under the four
    grades, never counted as one: ``calver`` (a calendar version) and
    ``unknown`` (a version that does not parse), each shown when present.
    Right: honest and under-bumped release steps per server."""
    rows = _rows(pairs)
    figure = _figure(11, max(4.2, 0.3 * min(top, len({r["server_id"] for r in rows}) or 1) + 2))
    left, right = figure.subplots(1, 2, width_ratios=[1, 1.3])
    silent = [d for d in DECLARES_NOTHING if any(r["declared"] == d for r in rows)]
    declared_axis = list(GRADES) + silent
    cells = {}
    for r in rows:
        cells[(r["declared"], r["grade"])] = cells.get((r["declared"], r["grade"]), 0) + 1
    import numpy as np
    from matplotlib.colors import ListedColormap

    # 0 empty, 1 honest, 2 under-bumped, 3 declares no bump (calver, unknown)
    kind = np.zeros((len(declared_axis), len(GRADES)))
    for i, d in enumerate(declared_axis):
        for j, g in enumerate(GRADES):
            n = cells.get((d, g), 0)
            if n:
                kind[i, j] = 3 if d in DECLARES_NOTHING else (1 if GRADES.index(d) >= j else 2)
                left.text(j, i, str(n), ha="center", va="center", fontsize="medium",
                          color="white", fontweight="bold")
    left.imshow(kind, cmap=ListedColormap(HONESTY_COLOURS), vmin=0, vmax=3, aspect="auto")
    left.set_xticks([j + 0.5 for j in range(len(GRADES) - 1)], minor=True)
    left.set_yticks([i + 0.5 for i in range(len(declared_axis) - 1)], minor=True)
    left.grid(which="minor", color="#d0d0d0", linewidth=0.8)
    left.tick_params(which="minor", length=0)
    left.set_xticks(range(len(GRADES)), GRADES)
    left.set_yticks(range(len(declared_axis)), declared_axis)
    left.set_xlabel("grade the changes earned")
    left.set_ylabel("bump the version number declared")
    key = "green honest, red under-bumped" + (", blue declares no bump" if silent else "")
    left.set_title(f"Declared bump vs computed grade\n({key})", fontsize="medium")
    per_server = {}
    for r in rows:
        if r["honest"] is None:
            continue
        counts = per_server.setdefault(r["server_id"], [0, 0])
        counts[0 if r["honest"] else 1] += 1
    ranked = sorted(per_server, key=lambda s: (per_server[s][1], sum(per_server[s]), s))[-top:]
    if ranked:
        labels = _labels(ranked)
        honest = [per_server[s][0] for s in ranked]
        under = [per_server[s][1] for s in ranked]
        right.barh(labels, honest, color="#2e7d32", label="honest")
        right.barh(labels, under, left=honest, color="#c62828", label="under-bumped")
        right.legend(**_LEGEND_RIGHT)
        _integer_ticks(right.xaxis)
    else:
        _empty(right, "no release step whose version declares a bump")
    right.set_xlabel("release steps")
    right.set_ylabel("server")
    more = f" (top {len(ranked)} of {len(per_server)})" if len(per_server) > len(ranked) else ""
    right.set_title("Release steps per server" + more, fontsize="medium")
    figure.suptitle("Semver honesty")
    return figure


def plot_description_drift(drift, top=20):
    """Horizontal bars: prose changes (descriptions, titles, instructions)
    per server, stacked by the classifier's verdict (rows of
    ``description_drift``)."""
    per_server = {}
    for r in _rows(drift):
        counts = per_server.setdefault(r["server_id"], {})
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    ranked = sorted(per_server, key=lambda s: (sum(per_server[s].values()), s))[-top:]
    figure = _figure(9, 0.32 * max(len(ranked), 3) + 1.6)
    axis = figure.subplots()
    if not ranked:
        _empty(axis, "no prose changed in this lake")
    _stacked_bars(axis, _labels(ranked), [per_server[s] for s in ranked])
    axis.set_xlabel("prose changes (descriptions, titles, instructions)")
    axis.set_ylabel("server")
    _integer_ticks(axis.xaxis)
    more = f" (top {len(ranked)} of {len(per_server)})" if len(per_server) > len(ranked) else ""
    axis.set_title("Description drift by classifier verdict" + more)
    if ranked:
        axis.legend(**_LEGEND_RIGHT)
    return figure


def plot_server_timeline(releases, semver=None, servers=None, limit=6, last=30):
    """One panel per server: the changes each release brought, stacked by
    severity, every captured release on the axis in version order (rows of
    ``analysis/severity_by_release``); with ``semver`` rows, the bump each
    release declared above its bar, under-bumps in red. ``servers`` picks
    the panels, else the ``limit`` servers with the most changes; each panel
    shows its ``last`` releases."""
    by_server = {}
    for r in _rows(releases):
        by_server.setdefault(r["server_id"], {}).setdefault(r["version"], {"position": r["position"]})
        if r["severity"] is not None:
            by_server[r["server_id"]][r["version"]][r["severity"]] = r["changes"]
    declared = {(r["server_id"], r["new_version"]): r for r in _rows(semver)}
    if servers:
        chosen = [s for s in by_server if s in set([servers] if isinstance(servers, str) else servers)]
    else:
        def weight(s):
            return sum(n for v in by_server[s].values() for k, n in v.items() if k != "position")
        chosen = sorted(by_server, key=lambda s: (-weight(s), s))[:limit]
    chosen = sorted(chosen)
    figure = _figure(10, 2.9 * max(len(chosen), 1) + 0.8)
    axes = figure.subplots(max(len(chosen), 1), 1, squeeze=False)[:, 0]
    if not chosen:
        _empty(axes[0])
        axes[0].set_title("Server timeline")
        return figure
    worded = False
    for axis, server in zip(axes, chosen):
        versions = sorted(by_server[server], key=lambda v: by_server[server][v]["position"])[-last:]
        xs = list(range(len(versions)))
        bottom = [0] * len(versions)
        for severity in SEVERITIES:
            counts = [by_server[server][v].get(severity, 0) for v in versions]
            axis.bar(xs, counts, bottom=bottom, color=COLOURS[severity], label=severity, width=0.65)
            bottom = [a + b for a, b in zip(bottom, counts)]
        # with many releases the words would collide: under-bumps get a marker
        words = len(versions) <= 15
        worded = worded or words
        for x, v, top in zip(xs, versions, bottom):
            row = declared.get((server, v))
            if not words:
                if row is not None and row["honest"] is False:
                    axis.plot([x], [top + 0.4], marker="v", color="#c62828", linestyle="none",
                              label="under-bumped release")
                continue
            if row is None:
                # no semver_honesty step: the first capture, or a step it leaves
                # out (unstable contracts, a diff that failed or has not run)
                first = by_server[server][v]["position"] == 1
                axis.annotate("first capture" if first else "not graded", (x, top),
                              textcoords="offset points", xytext=(0, 3), ha="center",
                              fontsize="x-small", color="#777")
                continue
            under = row["honest"] is False
            axis.annotate(f"{top} · {row['declared']}" + (" (under)" if under else ""), (x, top),
                          textcoords="offset points", xytext=(0, 3), ha="center",
                          fontsize="x-small", color="#c62828" if under else "#333",
                          fontweight="bold" if under else "normal")
        axis.set_xticks(xs, [_label(v) for v in versions], rotation=45 if len(versions) > 8 else 0,
                        ha="right" if len(versions) > 8 else "center", fontsize="small")
        axis.set_ylabel("changes")
        axis.set_ylim(0, max(bottom + [1]) * 1.3)
        _integer_ticks(axis.yaxis)
        axis.set_title(_label(server), loc="left", fontsize="medium")
    axes[-1].set_xlabel("release (in version order)")
    legend = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    figure.legend(legend.values(), legend.keys(), loc="outside lower center", ncols=5,
                  fontsize="small")
    note = ("above a bar: the bump its version number declared; red: under-bumped" if worded
            else "marked: releases whose version number under-declared their changes")
    figure.suptitle(f"Server timeline: contract changes per release\n({note})", fontsize="medium")
    return figure


@dataclasses.dataclass(frozen=True)
class Plot:
    name: str          # the PNG's file name, the HTML section's id
    title: str
    queries: tuple     # sql/ names whose rows the function takes, in order
    function: object
    caption: str       # one line under the figure: how to read it


PLOTS = {p.name: p for p in (
    Plot("rule_frequencies", "Rule frequencies", ("rule_frequencies",), plot_rule_frequencies,
         "Each bar is one rule: how many changes it reported across all servers and releases, coloured "
         "by severity, BREAKING in three shades: proven, by rule, unexplained; a bar that says "
         "\u201caxis cut\u201d is longer than the axis shows."),
    Plot("breaking_by_version", "Breaking changes over time", ("breaking_by_version",),
         plot_breaking_by_version,
         "Each row is one server, each mark one of its releases at its publish date (capture date when "
         "unknown): a disc sized by the breaking changes it brought against the release before, its dark "
         "core the proven ones, labelled proven/all (where releases crowd, the larger keep their labels); a grey dot broke nothing. Captures of one crawl with "
         "no publish dates stand in version order."),
    Plot("severity_mix", "Severity mix per server", ("analysis/severity_by_release",), plot_severity_mix,
         "Each bar is one server: the share of its changes at each severity over all its releases; "
         "n is how many changes the shares are of."),
    Plot("semver_honesty", "Semver honesty", ("semver_honesty",), plot_semver_honesty,
         "Left: each release step by the bump its version number declared (rows) and the grade its changes "
         "earned (columns); green honest, red under-bumped, blue a calendar or unparsed version (it declares "
         "no bump). Right: the same steps per server."),
    Plot("description_drift", "Description drift", ("description_drift",), plot_description_drift,
         "Each bar is one server: how many of its descriptions, titles and instructions changed, "
         "coloured by the prose classifier's verdict."),
    Plot("server_timeline", "Server timeline", ("analysis/severity_by_release", "semver_honesty"),
         plot_server_timeline,
         "One panel per server, one bar per release in version order: the changes it brought by severity, "
         "and above it the bump its version number declared."),
)}
ALL_PLOTS = tuple(PLOTS)  # the survey's page and `mcpdelta report` alike


def render(name: str, facts):
    """The figure ``name`` drawn from gathered facts."""
    plot = PLOTS[name]
    return plot.function(*(facts["rows"][q] for q in plot.queries))


def save_png(figure, path, dpi=110) -> pathlib.Path:
    """The figure as a PNG file, written whole (``mcpdelta.files``)."""
    from mcpdelta.files import replacing

    path = pathlib.Path(path)
    with replacing(path) as handle:
        figure.savefig(handle, format="png", dpi=dpi)
    return path
