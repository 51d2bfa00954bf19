"""The real services of the scale tests, started once per test session
(``services.py``): an S3 server, a Prefect API server, a Dask cluster."""

import pytest

from tests.scale.services import BUCKET, Services, start_cluster, start_prefect, start_s3


@pytest.fixture(scope="session")
def services():
    started = Services()
    yield started
    started.stop()


@pytest.fixture(scope="session")
def s3(services):
    return start_s3(services)


@pytest.fixture(scope="session")
def prefect_api(services):
    return start_prefect(services)


@pytest.fixture(scope="session")
def cluster(services, s3, prefect_api):
    return start_cluster(services, s3, prefect_api)


@pytest.fixture
def aws(s3, monkeypatch):
    """This test's process reads lakes on the S3 server (and no profile or
    file of this machine's gets in the way)."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    for name, value in s3.items():
        monkeypatch.setenv(name, value)
    return s3


_lakes = iter(range(10 ** 6))


@pytest.fixture
def s3_lake(aws, request):
    """A lake URI of this test's own in the bucket."""
    name = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"s3://{BUCKET}/{name}-{next(_lakes)}"
