"""The flows' setup, in fresh processes: Prefect's telemetry off unless the
user turned it on, the Dask runner in the flows extra, and a missing runner
or a usage error one line (exit 2)."""

import os
import subprocess
import sys
import tomllib

from tests.conftest import ROOT

# a package made absent, as on an install without it (importing it fails,
# importlib.util.find_spec says None)
ABSENT = "import sys\nfor name in {names!r}:\n    sys.modules[name] = None\n"


def _python(code: str, env=None, cwd=None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          env={**clean, **(env or {})}, timeout=120)


TELEMETRY = """
import os
import mcpdelta.flows.survey
from prefect.settings import get_current_settings
print(os.environ["DO_NOT_TRACK"], os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"],
      get_current_settings().server.analytics_enabled)
"""


def test_prefect_telemetry_is_off_unless_the_user_turned_it_on():
    off = _python(TELEMETRY)
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["1", "false", "False"]
    on = _python(TELEMETRY, env={"DO_NOT_TRACK": "0", "PREFECT_SERVER_ANALYTICS_ENABLED": "true"})
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["0", "true", "True"]


def test_the_dask_runner_comes_with_the_flows_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("prefect-dask") for req in extras["flows"])


RUN_FLOW = ABSENT + """
import runpy
sys.argv = ["survey", *{argv!r}]
runpy.run_module("mcpdelta.flows.survey", run_name="__main__")
"""


def test_a_missing_dask_runner_is_one_line_naming_the_extra(tmp_path):
    done = _python(RUN_FLOW.format(names=["prefect_dask"], argv=["--task-runner", "dask", "--no-crawl",
                                                                "--lake", str(tmp_path / "lake")]))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "--task-runner dask needs the flows extra (prefect_dask is not installed)" in done.stderr
    assert "pip install 'mcpdelta[flows]'" in done.stderr


def test_the_flows_without_prefect_are_one_line_naming_the_extra(tmp_path):
    done = _python(RUN_FLOW.format(names=["prefect"], argv=["--no-crawl", "--lake", str(tmp_path / "lake")]))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "needs the flows extra (prefect is not installed)" in done.stderr


def test_a_usage_error_of_the_flows_is_one_line(tmp_path):
    done = _python(RUN_FLOW.format(names=[], argv=["--format", "xml"]))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "usage:" not in done.stderr and "'xml'" in done.stderr
    nightly = _python("import sys\nfrom mcpdelta.flows.nightly import main\nsys.argv = ['nightly', '--cron']\nmain()")
    assert nightly.returncode == 2 and nightly.stderr.count("\n") == 1, nightly.stderr
    assert "usage:" not in nightly.stderr and "--cron" in nightly.stderr


CRAWL = ABSENT + """
from mcpdelta.cli import main
sys.exit(main(["crawl", "--servers", {servers!r}, "--out", {out!r}]))
"""


def test_crawling_the_demo_servers_without_the_survey_extra_names_it(tmp_path):
    done = _python(CRAWL.format(names=["mcp", "pydantic"], servers=str(ROOT / "data" / "servers" / "demo.yaml"),
                                out=str(tmp_path / "out")))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert "the demo servers: they need the survey extra (mcp is not installed)" in done.stderr
    assert "pip install 'mcpdelta[survey]'" in done.stderr
