"""`mcpdelta site` on the demo lake: a page per server and per rule, every
internal link resolving, a hostile name shown as text, pages under 1 MB,
the dataset and the README's query."""

import html.parser
import pathlib
import urllib.parse

import duckdb

from mcpdelta.engine.catalog import RULES
from mcpdelta.lake import Lake
from mcpdelta.site import slug
from tests.site.conftest import HOSTILE_SERVER, run

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Page(html.parser.HTMLParser):
    """A page's links, ids and elements, as a browser's parser reads them."""

    def __init__(self, text):
        super().__init__()
        self.links, self.ids, self.tags, self.text = [], set(), [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])

    def handle_data(self, data):
        self.text.append(data)


def pages(site):
    return sorted(p for p in site.rglob("*.html"))


def test_a_page_per_server_and_per_rule(lake):
    site = lake / "all"
    servers = [r[0] for r in Lake(str(lake / "lake")).connect().execute(
        "SELECT server_id FROM attempts UNION SELECT server_id FROM manifests ORDER BY 1").fetchall()]
    assert len(servers) == 3 and HOSTILE_SERVER in servers
    for server in servers:
        page = Page((site / "servers" / f"{slug(server)}.html").read_text())
        assert server in "".join(page.text)
    for rule in RULES:
        assert (site / "rules" / f"{slug(rule)}.html").is_file(), rule
    index = Page((site / "index.html").read_text())
    linked = {link for link in index.links if link.startswith("servers/")}
    assert linked == {f"servers/{slug(s)}.html" for s in servers}


def test_every_internal_link_resolves(lake):
    for site in (lake / "all", lake / "consecutive"):
        parsed = {p: Page(p.read_text()) for p in pages(site)}
        checked = 0
        for path, page in parsed.items():
            for link in page.links:
                url = urllib.parse.urlsplit(link)
                assert not url.scheme and not url.netloc, (path, link)  # nothing from the network
                target = (path.parent / urllib.parse.unquote(url.path)).resolve() if url.path else path
                assert target.is_relative_to(site.resolve()) and target.exists(), (path, link)
                if url.fragment:
                    assert url.fragment in parsed[target].ids, (path, link)
                checked += 1
        assert checked > 1000


def test_a_hostile_server_and_tool_name_show_as_text(lake):
    site = lake / "all"
    text = (site / "servers" / f"{slug(HOSTILE_SERVER)}.html").read_text()
    page = Page(text)
    assert not [t for t, a in page.tags if t == "img" or "onerror" in a]
    assert [(t, a) for t, a in page.tags if t == "script"] == [("script", {"src": "../assets/site.js"})]
    shown = "".join(page.text)
    assert HOSTILE_SERVER in shown  # the name itself, as text
    assert "<script>alert(1)</script>\\u202eevil" in shown  # the bidi override as its escape
    assert "\u202e" not in text
    # the change it made is listed, proven by its witness (an object without limit, now rejected)
    assert "tool.input.required.added" in shown and "witness rejected" in shown
    index = Page((site / "index.html").read_text())
    assert not [t for t, a in index.tags if t == "img"]
    assert HOSTILE_SERVER in "".join(index.text)


def test_pages_are_small(lake):
    sizes = {p: p.stat().st_size for p in pages(lake / "all")}
    assert len(sizes) >= len(RULES) + 3 + 4
    assert max(sizes.values()) < 1_000_000


def test_a_lake_of_consecutive_pairs_says_so(lake):
    demo = "servers/demo-notes.html"
    consecutive = (lake / "consecutive" / demo).read_text()
    every = (lake / "all" / demo).read_text()
    assert "surveyed with consecutive pairs only" in consecutive
    assert "surveyed with consecutive pairs only" not in every
    # 1.0.0 -> 2.0.0 is diffed only in the all-pairs lake
    assert 'id="pair-1-4"' in every and 'id="pair-1-4"' not in consecutive


def test_the_site_is_the_same_every_build(lake, tmp_path):
    done = run("site", "--lake", "lake", "--out", tmp_path / "again", cwd=lake)
    assert done.returncode == 0, done.stderr
    for page in pages(lake / "all"):
        again = tmp_path / "again" / page.relative_to(lake / "all")
        if page.name != "method.html":  # it says whether the build carries the dataset
            assert again.read_bytes() == page.read_bytes(), page


def test_the_dataset_and_the_readme_query(lake):
    data = lake / "all" / "data" / "v1"
    from mcpdelta.site import DATA_TABLES

    assert sorted(p.stem for p in data.glob("*.parquet")) == sorted(DATA_TABLES)
    con = duckdb.connect()
    lake_con = Lake(str(lake / "lake")).connect()
    for table in ("manifests", "attempts"):
        exported = con.execute(f"SELECT count(*) FROM '{data}/{table}.parquet'").fetchone()[0]
        assert exported == lake_con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0
    # the README's query, as the site carries it, from the site's folder as the README says
    query = (lake / "all" / "sql" / "site" / "broke_most.sql").read_text()
    assert query == (ROOT / "sql" / "site" / "broke_most.sql").read_text()
    here = duckdb.connect()
    here.execute(f"SET file_search_path = '{lake / 'all'}'")
    rows = here.execute(query).fetchall()
    # counted independently: steps of each server with a witnessed BREAKING change
    proven = {r[0]: r[1] for r in con.execute(
        f"SELECT server_id, count(DISTINCT new_digest) FROM '{data}/changes.parquet' c "
        f"SEMI JOIN '{data}/release_steps.parquet' s USING (server_id, old_digest, new_digest) "
        "WHERE severity = 'BREAKING' AND witness_json IS NOT NULL GROUP BY 1").fetchall()}
    assert {r[0]: r[1] for r in rows} == proven
    assert proven[HOSTILE_SERVER] == 1 and len(rows) == 3


def test_bad_input_is_one_line_and_exit_2(lake, tmp_path):
    (tmp_path / "file").write_text("x")
    junk = tmp_path / "broken" / "manifests" / "v1" / "server_id=x" / "part-1.parquet"
    junk.parent.mkdir(parents=True)
    junk.write_text("not parquet")
    for args in (("--lake", tmp_path / "nowhere", "--out", tmp_path / "o"),
                 ("--lake", tmp_path / "broken", "--out", tmp_path / "o"),
                 ("--lake", "lake", "--out", tmp_path / "file"),
                 ("--lake", "lake", "--out", tmp_path / "o", "--servers", tmp_path / "missing.yaml"),
                 ("--lake", "lake", "--out", tmp_path / "o", "--downloads", tmp_path / "file")):
        done = run("site", *args, cwd=lake)
        assert done.returncode == 2, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_step_lists_its_share_of_the_budget_and_counts_the_rest(lake):
    from mcpdelta.site import settle
    from mcpdelta.survey.queries import open_lake, query

    con = settle(open_lake(lake / "lake"))
    every = query(con, "site/step_changes", {"budget": 10 ** 6, "least": 10 ** 6})
    few = query(con, "site/step_changes", {"budget": 0, "least": 1})
    counts = {(r[0], r[1], s): r[2 + i] for r in con.execute(
        "SELECT server_id, position, breaking, potentially_breaking, non_breaking, documentation "
        "FROM release_steps").fetchall() for i, s in enumerate(
        ("BREAKING", "POTENTIALLY_BREAKING", "NON_BREAKING", "DOCUMENTATION"))}
    listed = {}
    for row in every:
        key = (row["server_id"], row["position"], row["severity"])
        listed[key] = listed.get(key, 0) + 1
    assert listed == {k: v for k, v in counts.items() if v}  # every change, as release_steps counts them
    shown = {}
    for row in few:
        key = (row["server_id"], row["position"], row["severity"])
        shown[key] = shown.get(key, 0) + 1
    assert set(shown) == set(listed) and set(shown.values()) == {1}
    assert sum(listed.values()) > len(listed)  # some step had more than one change of a severity to leave out


def test_downloads_show_compactly(tmp_path):
    from mcpdelta.site import _load_downloads

    listing = tmp_path / "downloads.tsv"
    listing.write_text("registry\tname\tpopularity\n"
                       "npm\ta\t1234567 downloads/month\n"
                       "pypi\tb\trank 6174 of the 15,000 most downloaded\n"
                       "npm\tc\tsome words\n"
                       "npm\td\t\n")
    table = _load_downloads(listing)
    # (the whole text, the cell's text, the number sorted by)
    assert table[("npm", "a")] == ("1234567 downloads/month", "1,234,567/month", 1234567)
    assert table[("pypi", "b")] == ("rank 6174 of the 15,000 most downloaded", "rank 6,174", None)
    assert table[("npm", "c")] == ("some words", "some words", None)
    assert ("npm", "d") not in table
