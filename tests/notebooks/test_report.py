"""`mcpdelta report`: the survey's pictures without Jupyter, and the lake
helpers the notebooks and the report share (mcpdelta/survey/queries.py and
report.py)."""

import struct

import pytest

from mcpdelta.survey.queries import frame, open_lake, query
from mcpdelta.survey.report import ALL_PLOTS, PLOTS


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_html_report_carries_every_plot(demo_lake, report, tmp_path):
    result = report("--lake", demo_lake, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    page = tmp_path / "out" / "survey.html"
    assert result.stdout.strip().splitlines()[-1] == f"report: {page}"
    text = page.read_text()
    assert text.count("<svg") == len(ALL_PLOTS) == 6
    for name in ALL_PLOTS:
        assert f'id="{name}"' in text
    # self-contained: no script, nothing fetched (namespace URIs are not fetched)
    assert "<script" not in text and "<link" not in text and "<img" not in text
    assert 'src="' not in text and 'href="http' not in text
    assert "Under-bumped releases" in text and "demo-weather" in text
    assert "Under-bumped releases" in (tmp_path / "out" / "survey.md").read_text()


def test_default_output_is_next_to_the_lake(fixture_lake, report):
    result = report("--lake", fixture_lake)
    assert result.returncode == 0, result.stderr
    page = fixture_lake.parent / "lake-report" / "survey.html"
    assert result.stdout.strip() == f"report: {page}"
    assert page.read_text().count("<svg") == 6


def test_png_export_writes_one_valid_image_per_plot(demo_lake, report, tmp_path):
    result = report("--lake", demo_lake, "--out", tmp_path / "png", "--format", "png")
    assert result.returncode == 0, result.stderr
    written = result.stdout.split()
    assert written == [str(tmp_path / "png" / f"{name}.png") for name in ALL_PLOTS]
    for name in ALL_PLOTS:
        width, height = png_size(tmp_path / "png" / f"{name}.png")
        assert 600 <= width <= 2000 and 250 <= height <= 2000, (name, width, height)


def test_png_export_of_chosen_plots_and_servers(fixture_lake, report, tmp_path):
    result = report("--lake", fixture_lake, "--out", tmp_path, "--format", "png",
                    "--plot", "server_timeline", "--server", "beta")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["server_timeline.png"]
    png_size(tmp_path / "server_timeline.png")


@pytest.mark.parametrize("args, message", [
    (("--lake", "{tmp}/nope"), "nope: no such lake folder"),
    (("--lake", "{lake}", "--plot", "pie"), "unknown plot 'pie'"),
    (("--lake", "{lake}", "--server", "nobody"), "matches none"),
])
def test_bad_input_is_one_line_exit_2(args, message, fixture_lake, report, tmp_path):
    args = [a.format(tmp=tmp_path, lake=fixture_lake) for a in args]
    result = report(*args, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_empty_lake_still_reports(report, tmp_path):
    (tmp_path / "lake").mkdir()
    result = report("--lake", tmp_path / "lake", "--out", tmp_path / "out", "--format", "png")
    assert result.returncode == 0, result.stderr
    assert len(list((tmp_path / "out").glob("*.png"))) == len(ALL_PLOTS)


def test_every_plot_has_a_one_line_caption_in_the_page(demo_lake, report, tmp_path):
    import html

    assert report("--lake", demo_lake, "--out", tmp_path).returncode == 0
    text = (tmp_path / "survey.html").read_text()
    for plot in PLOTS.values():
        assert "\n" not in plot.caption and len(plot.caption) > 40
        assert f"<figcaption>{html.escape(plot.caption)}</figcaption>" in text


@pytest.mark.parametrize("lake", ["demo_lake", "fixture_lake"])
def test_the_survey_and_report_write_the_same_page(lake, report, tmp_path, request):
    lake = request.getfixturevalue(lake)
    assert report("--lake", lake, "--out", tmp_path).returncode == 0
    surveyed = lake.parent / "survey-report"
    assert (tmp_path / "survey.html").read_bytes() == (surveyed / "survey.html").read_bytes()
    assert (tmp_path / "survey.md").read_bytes() == (surveyed / "survey.md").read_bytes()


def test_breaking_rows_are_aggregated_per_step_and_rule(fixture_lake, report, tmp_path):
    from mcpdelta.lake import Lake

    assert report("--lake", fixture_lake, "--out", tmp_path).returncode == 0
    text = (tmp_path / "survey.html").read_text()
    table = text[text.index("<h2>Breaking changes</h2>"):]
    table = table[: table.index("</table>")]
    con = Lake(str(fixture_lake)).connect()
    groups = con.execute("SELECT count(*) FROM (SELECT DISTINCT server_id, old_version, new_version, rule "
                         "FROM changes WHERE severity = 'BREAKING' AND NOT suppressed)").fetchone()[0]
    assert groups > 0 and table.count("<tr><td>") == groups


def test_open_lake_filters_servers_by_glob(fixture_lake):
    con = open_lake(fixture_lake, ["be*"])
    assert con.execute("SELECT DISTINCT server_id FROM changes").fetchall() == [("beta",)]
    assert con.execute("SELECT DISTINCT server_id FROM manifests").fetchall() == [("beta",)]
    rows = frame(con, "breaking_by_version").to_dicts()
    assert [{k: r[k] for k in ("server_id", "version", "breaking", "changes")} for r in rows] == [
        {"server_id": "beta", "version": "0.10.0", "breaking": 1, "changes": 2}]
    assert rows[0]["released_at"] is not None
    with pytest.raises(ValueError, match="matches none"):
        open_lake(fixture_lake, ["gamma"])


def test_open_lake_shows_the_latest_policy_only(fixture_lake, tmp_path):
    import shutil

    from mcpdelta.engine.policy import Policy
    from mcpdelta.lake import Lake
    from mcpdelta.survey.diffstage import run_diff_stage

    lake = tmp_path / "lake"
    shutil.copytree(fixture_lake, lake)
    # a second policy diffs every pair again: the lake now holds both
    run_diff_stage(Lake(str(lake)), Policy(cli_overrides={"tool.removed": "NON_BREAKING"}), workers=1)
    assert Lake(str(lake)).connect().execute("SELECT count(*) FROM all_pairs").fetchone()[0] == 6
    con = open_lake(lake)
    assert con.execute("SELECT count(*) FROM pairs").fetchone()[0] == 3
    totals = {r["severity"]: r["changes"] for r in query(con, "severity_totals")}
    assert totals == {"BREAKING": 1, "NON_BREAKING": 2, "DOCUMENTATION": 3}


def test_semver_honesty_plot_gives_calendar_versions_a_row_of_their_own():
    from mcpdelta.survey.report import plot_semver_honesty

    rows = [  # rows of sql/semver_honesty.sql, as they come
        {"server_id": "dated", "declared": "calver", "grade": "major", "honest": None},
        {"server_id": "dated", "declared": "calver", "grade": "none", "honest": None},
        {"server_id": "plain", "declared": "minor", "grade": "major", "honest": False},
        {"server_id": "plain", "declared": "patch", "grade": "none", "honest": True},
    ]
    left, right = plot_semver_honesty(rows).axes[:2]
    declared = [t.get_text() for t in left.get_yticklabels()]
    assert declared == ["none", "patch", "minor", "major", "calver"]  # no 'unknown' row: none came
    counts = {tuple(t.get_position()): t.get_text() for t in left.texts}
    # (grade column, declared row): the calendar steps sit under calver, not under a bump
    assert counts == {(3, 4): "1", (0, 4): "1", (3, 2): "1", (0, 1): "1"}
    kind = left.images[0].get_array()
    assert kind[4][3] == kind[4][0] == 3  # grey: declares no bump
    assert kind[2][3] == 2 and kind[1][0] == 1  # under-bumped, honest
    # only steps that declared a bump are counted per server
    assert [t.get_text() for t in right.get_yticklabels()] == ["plain"]


def test_the_rule_and_time_figures_split_breaks_by_evidence():
    """Rows as sql/rule_frequencies.sql and sql/breaking_by_version.sql give
    them: BREAKING is drawn as proven / by rule / unexplained, and over time
    each release's disc has a proven core, labelled proven/all."""
    import datetime as dt

    from mcpdelta.survey.report import EVIDENCE_COLOURS, plot_breaking_by_version, plot_rule_frequencies

    rules = [{"rule": "tool.input.type.narrowed", "severity": "BREAKING", "changes": 7, "proven": 4,
              "by_rule": 0, "unexplained": 3},
             {"rule": "tool.removed", "severity": "BREAKING", "changes": 2, "proven": 0, "by_rule": 2,
              "unexplained": 0},
             {"rule": "tool.added", "severity": "NON_BREAKING", "changes": 5, "proven": 0, "by_rule": 0,
              "unexplained": 0}]
    axis = plot_rule_frequencies(rules).axes[0]
    widths = {}
    for patch in axis.patches:
        colour = next((k for k, c in EVIDENCE_COLOURS.items()
                       if tuple(round(x, 3) for x in patch.get_facecolor()[:3]) ==
                       tuple(round(int(c[i:i + 2], 16) / 255, 3) for i in (1, 3, 5))), "other")
        widths[colour] = widths.get(colour, 0) + patch.get_width()
    assert widths == {"proven": 4, "unexplained": 3, "by_rule": 2, "other": 5}
    labels = [t.get_text() for t in axis.get_legend().get_texts()]
    assert labels[:3] == ["BREAKING, proven", "BREAKING, by rule", "BREAKING, unexplained"]

    day = dt.datetime(2026, 1, 1)
    releases = [{"server_id": "s", "version": v, "breaking": b, "proven": p, "changes": b,
                 "released_at": day + dt.timedelta(days=i)} for i, (v, b, p) in enumerate(
                     [("1.0.0", 0, 0), ("1.1.0", 5, 2), ("2.0.0", 3, 3)])]
    axis = plot_breaking_by_version(releases).axes[0]
    assert [t.get_text() for t in axis.texts] == ["1.1.0: 2/5", "2.0.0: 3/3"]
    from matplotlib.colors import to_hex

    discs = [(to_hex(c.get_facecolor()[0]), float(c.get_sizes()[0])) for c in axis.collections if c.get_offsets().size]
    cores = [size for colour, size in discs if colour == EVIDENCE_COLOURS["proven"]]
    rims = [size for colour, size in discs if colour == EVIDENCE_COLOURS["by_rule"]]
    assert len(rims) == 2 and len(cores) == 2
    assert cores[0] == rims[0] * 2 / 5 and cores[1] == rims[1]  # the core's area is the proven share
    assert rims[0] > rims[1]  # five breaks draw a larger disc than three


def _release_rows(dates):
    """Rows of sql/breaking_by_version.sql for servers s0..sN: per server a
    run of releases, every third one breaking (counts 1 to 90)."""
    rows = []
    for i, server_dates in enumerate(dates):
        for j, when in enumerate(server_dates):
            rows.append({"server_id": f"server-{i}", "version": f"1.{j}.0", "released_at": when,
                         "breaking": (i * 7 + j * 13) % 90 + 1 if j % 3 == 1 else 0, "changes": 5})
    return rows


def test_breaking_over_time_keeps_servers_apart_and_labels_clear():
    """Ten servers over a year and a half (as on the reference lake): one row
    each, no line crossing another, no two labels on top of each other."""
    import datetime as dt

    from mcpdelta.survey.report import plot_breaking_by_version

    start = dt.datetime(2025, 3, 1)
    dates = [[start + dt.timedelta(days=9 * i + 45 * j) for j in range(12)] for i in range(10)]
    figure = plot_breaking_by_version(_release_rows(dates))
    [axis] = figure.axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    rows = [t.get_text() for t in axis.get_yticklabels()]
    assert sorted(rows) == sorted(f"server-{i}" for i in range(10))
    for line in axis.lines:  # each server's line is its own row: flat, so none crosses another
        assert len(set(line.get_ydata())) == 1
    labels = [t.get_window_extent(renderer) for t in axis.texts]
    assert len(labels) == sum(1 for r in _release_rows(dates) if r["breaking"])
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            assert not a.overlaps(b), "two labels overlap"
    assert "release date" in axis.get_xlabel()


def test_crowded_releases_keep_the_largest_labels_and_none_overlap():
    """Releases a day apart (as on the ecosystem lake): labels that would
    overlap are dropped, the larger release's kept."""
    import datetime as dt

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from mcpdelta.survey.report import plot_breaking_by_version

    start = dt.datetime(2026, 1, 1)
    counts = [3, 40, 2, 500, 7, 1, 60]
    rows = [{"server_id": "crowded", "version": f"1.{i}.0", "released_at": start + dt.timedelta(days=i),
             "breaking": n, "proven": n // 2, "changes": n} for i, n in enumerate(counts)]
    rows += [{"server_id": "crowded", "version": "2.0.0", "released_at": start + dt.timedelta(days=300),
              "breaking": 0, "proven": 0, "changes": 0}]
    figure = plot_breaking_by_version(rows)
    [axis] = figure.axes
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    boxes = [t.get_window_extent(canvas.get_renderer()) for t in axis.texts]
    assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    texts = [t.get_text() for t in axis.texts]
    assert "1.3.0: 250/500" in texts  # the largest release keeps its label
    assert len(texts) < len(counts)  # seven labels a day apart do not all fit


def test_breaking_over_time_of_one_crawl_reads_in_version_order():
    """Captures seconds apart with no publish dates (the demo lake): no
    time axis in seconds, releases in version order, each named."""
    import datetime as dt

    from mcpdelta.survey.report import plot_breaking_by_version

    start = dt.datetime(2026, 12, 3, 7, 29, 17)
    dates = [[start + dt.timedelta(seconds=2 * j + i) for j in range(3)] for i in range(2)]
    figure = plot_breaking_by_version(_release_rows(dates))
    [axis] = figure.axes
    assert axis.get_xlabel() == "releases in version order (all captured on 2026-12-03; no publish dates)"
    assert [t.get_text() for t in axis.get_xticklabels()] == []
    named = [t.get_text() for t in axis.texts]
    assert named.count("1.0.0") == named.count("1.2.0") == 2


def test_semver_heatmap_colours_are_told_apart_at_a_glance():
    """Empty cells white; honest, under-bumped and declares-no-bump each a
    colour of its own (no two greys)."""
    import colorsys

    from matplotlib.colors import to_rgb

    from mcpdelta.survey.report import plot_semver_honesty

    rows = [{"server_id": "a", "declared": "calver", "grade": "major", "honest": None},
            {"server_id": "b", "declared": "minor", "grade": "major", "honest": False}]
    left = plot_semver_honesty(rows).axes[0]
    empty, *kinds = [to_rgb(c) for c in left.images[0].cmap.colors]
    assert min(empty) > 0.95
    hsv = [colorsys.rgb_to_hsv(*c) for c in kinds]
    assert all(s >= 0.4 and v >= 0.3 for _, s, v in hsv), "a category drawn in grey"
    hues = sorted(h * 360 for h, _, _ in hsv)
    gaps = [b - a for a, b in zip(hues, hues[1:])] + [360 - hues[-1] + hues[0]]
    assert min(gaps) >= 60


def test_no_under_bumped_release_says_none(fixture_lake, report, tmp_path):
    result = report("--lake", fixture_lake, "--server", "alph*", "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "out" / "survey.html").read_text()
    assert "<h2>Under-bumped releases</h2><p>None found.</p>" in page
