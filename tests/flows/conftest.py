"""One Prefect test harness for the whole session (it starts a temporary API
server: about 11 s), quiet, offline, in a temporary PREFECT_HOME."""

import os
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="prefect-home-")
os.environ.update({
    "PREFECT_HOME": _HOME,
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_LOGGING_LEVEL": "CRITICAL",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
})


@pytest.fixture(scope="session")
def prefect_harness():
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield
