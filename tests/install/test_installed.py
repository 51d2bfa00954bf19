"""A regular, non-editable install, as users install: the wheel built from
this checkout, installed into fresh virtual environments, every command run
from a folder that is not the checkout (an editable install would hide a
file the wheel lacks).

One venv gets ``[all]`` (the main job and the pipeline), one the base
install alone (the CI gates, and a one-line pointer to the missing extra)."""

import os
import pathlib
import subprocess
import sys
import venv

import pytest

from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "samples" / "reference"
SLICE = ROOT / "tests" / "survey" / "slice"
PAIR = ROOT / "tests" / "fixtures" / "pairs" / "search_breaking"


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w", str(out)],
                   check=True, capture_output=True, timeout=600)
    [built] = out.glob("mcpdelta-*.whl")
    return built


def make_venv(folder: pathlib.Path, requirement: str) -> pathlib.Path:
    venv.create(folder, with_pip=True)
    pip = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", requirement],
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-2000:]
    return folder / "bin"


@pytest.fixture(scope="session")
def full(tmp_path_factory, wheel) -> pathlib.Path:
    return make_venv(tmp_path_factory.mktemp("venv-all"), f"{wheel}[all]")


@pytest.fixture(scope="session")
def base(tmp_path_factory, wheel) -> pathlib.Path:
    return make_venv(tmp_path_factory.mktemp("venv-base"), str(wheel))


def run_in(bindir, folder, *args, timeout=300):
    """``mcpdelta ARGS`` from ``folder``, with nothing of the checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["DO_NOT_TRACK"] = "1"
    done = subprocess.run([str(bindir / "mcpdelta"), *map(str, args)], capture_output=True, text=True,
                          cwd=folder, env=env, timeout=timeout)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def test_the_wheel_carries_what_the_code_reads(wheel):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for sql in (ROOT / "sql").rglob("*.sql"):
        assert f"mcpdelta/_bundled/sql/{sql.relative_to(ROOT / 'sql')}" in names
    for path in [*(ROOT / "data" / "servers").glob("*.yaml"), *(ROOT / "data" / "demo").glob("*.py")]:
        assert f"mcpdelta/_bundled/{path.relative_to(ROOT)}" in names
    for case in (ROOT / "tests" / "engine" / "cases").glob("*.yaml"):
        assert f"mcpdelta/_bundled/rule_cases/{case.name}" in names
    assert "mcpdelta/flows/survey.py" in names and "mcpdelta/flows/nightly.py" in names
    assert not [n for n in names if "__pycache__" in n]
    # one import package at the top of site-packages, beside its dist-info
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"mcpdelta"}


THEIRS = "raise ImportError('their {name}/ package, not mcpdelta\\'s, was imported by mcpdelta')\n"


def test_a_project_with_its_own_flows_and_pipeline_packages(full, tmp_path):
    """The usual Prefect layout (a project's own ``flows/``, a ``pipeline/``)
    neither shadows mcpdelta nor is shadowed by it: the console script and
    the flows run from that folder, and the project's packages stay its own."""
    for name in ("flows", "pipeline"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("OWNER = 'theirs'\n")
        (tmp_path / name / "survey.py").write_text(THEIRS.format(name=name))
        (tmp_path / name / "cli.py").write_text(THEIRS.format(name=name))
    site = subprocess.run([str(full / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert not (pathlib.Path(site) / "pipeline").exists() and not (pathlib.Path(site) / "flows").exists()
    done = run_in(full, tmp_path, "diff", PAIR / "old.json", PAIR / "new.json")
    assert done.returncode == 1 and "BREAKING" in done.stdout, done.stderr
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DO_NOT_TRACK": "1",
           "PREFECT_HOME": str(tmp_path / "prefect")}
    flow = subprocess.run([str(full / "python"), "-m", "mcpdelta.flows.survey", "--help"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)
    assert flow.returncode == 0 and "--lake" in flow.stdout, flow.stderr[-2000:]
    code = ("import flows, pipeline, mcpdelta.flows.survey, mcpdelta.cli; "
            "print(flows.OWNER, pipeline.OWNER, mcpdelta.flows.survey.__file__)")
    both = subprocess.run([str(full / "python"), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)
    assert both.returncode == 0, both.stderr[-2000:]
    theirs, ours, where = both.stdout.split()
    assert (theirs, ours) == ("theirs", "theirs") and "site-packages" in where


def test_main_job_runs_offline_and_writes_its_report(full, tmp_path):
    done = run_in(full, tmp_path, "survey")
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "lake-report" / "survey.html").stat().st_size > 0
    assert "demo-notes" in (tmp_path / "lake-report" / "survey.md").read_text()


def test_ingest_survey_report_and_drift_on_the_sample(full, tmp_path):
    assert run_in(full, tmp_path, "ingest", SAMPLE, "--lake", "lake").returncode == 0
    survey = run_in(full, tmp_path, "survey", "--lake", "lake", "--no-crawl", "--format", "json")
    assert survey.returncode in (0, 1), survey.stderr
    import json

    summary = json.loads(survey.stdout)
    assert summary["servers"] == len([p for p in SAMPLE.iterdir() if p.is_dir()])
    assert summary["changes"]["BREAKING"] > 0
    report = run_in(full, tmp_path, "report", "--lake", "lake", "--out", "report")
    assert report.returncode == 0, report.stderr
    assert list((tmp_path / "report").glob("*.html"))
    drift = run_in(full, tmp_path, "drift", "--lake", "lake", "--format", "json")
    assert drift.returncode == 0, drift.stderr
    assert json.loads(drift.stdout)


def test_study_on_the_slice(full, tmp_path):
    done = run_in(full, tmp_path, "study", SLICE / "servers.yaml", "--out", "out", "--work", "work",
                  "--cache", "cache")
    assert done.returncode == 0, done.stderr
    assert "server-alpha" in (tmp_path / "out" / "README.md").read_text()


def test_flows_import_from_the_installed_package(full, tmp_path):
    code = ("import mcpdelta.flows.survey, mcpdelta.flows.nightly; print(mcpdelta.flows.survey.__file__); "
            "print(mcpdelta.flows.nightly.deployment().name)")
    done = subprocess.run([str(full / "python"), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DO_NOT_TRACK": "1",
                               "PREFECT_HOME": str(tmp_path / "prefect")}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    where, name = done.stdout.splitlines()[-2:]
    assert "site-packages" in where and name == "nightly"


def test_base_install_runs_the_ci_gates(base, tmp_path):
    done = run_in(base, tmp_path, "diff", PAIR / "old.json", PAIR / "new.json")
    assert done.returncode == 1 and "BREAKING" in done.stdout
    lock = run_in(base, tmp_path, "lock", PAIR / "old.json", "-o", "lock.yaml")
    assert lock.returncode == 0
    assert run_in(base, tmp_path, "verify-lock", PAIR / "new.json", "--lock", "lock.yaml").returncode == 3
    assert run_in(base, tmp_path, "rules", "--format", "json").returncode == 0
    explained = run_in(base, tmp_path, "rules", "tool.removed")  # its example read from the wheel
    assert explained.returncode == 0 and "Tool export was removed." in explained.stdout
    assert run_in(base, tmp_path, "-V").stdout.startswith("mcpdelta ")


@pytest.mark.parametrize("command, extra", [
    (["survey"], "survey"), (["ingest", ".", "--lake", "lake"], "survey"),
    (["report", "--lake", "lake"], "survey"),
    # judges configured: one line naming the extra, not a judge_error note per change
    (["diff", PAIR / "old.json", PAIR / "new.json", "--semantic", "--config", "judges.yml"], "judges"),
])
def test_base_install_names_the_missing_extra(base, tmp_path, command, extra):
    (tmp_path / "judges.yml").write_text('judges:\n  - {endpoint: "http://127.0.0.1:9/v1", model: m}\n')
    done = run_in(base, tmp_path, *command)
    assert done.returncode == 2
    assert f"pip install 'mcpdelta[{extra}]'" in done.stderr and done.stderr.count("\n") == 1


def test_base_install_is_small(base, full):
    """The CI user's install leaves out the pipeline stack."""
    def installed(bindir):
        site = next((bindir.parent / "lib").glob("python3*/site-packages"))
        return {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}

    small, large = installed(base), installed(full)
    assert {"duckdb", "pyarrow", "polars", "prefect", "openai", "matplotlib"}.isdisjoint(small)
    assert {"duckdb", "pyarrow", "polars", "prefect", "openai", "matplotlib"} <= large
