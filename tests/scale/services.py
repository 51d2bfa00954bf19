"""Real services on 127.0.0.1, started as a user would start them: an S3
server (moto in server mode, its own process, with IAM checking every
request's signature), a Prefect API server, and a Dask cluster of a
``dask scheduler`` and ``dask worker`` processes. The tests start them once
a session (``conftest.py``); ``bench/bench_cluster.py`` starts them too."""

import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]

BIN = pathlib.Path(sys.executable).parent
BUCKET = "mcpdelta-scale"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(check, what, timeout=180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():
                return
        time.sleep(0.3)
    raise RuntimeError(f"{what} did not come up in {timeout:.0f} s")


class Services:
    """The processes started, ended by their ids at the session's end."""

    def __init__(self):
        self.processes = []
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="mcpdelta-scale-"))

    def start(self, name, argv, env):
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                   cwd=self.folder, start_new_session=True)
        self.processes.append((process, log))
        return process

    def stop(self):
        for process, log in reversed(self.processes):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait(15)
            log.close()


def start_s3(services) -> dict:
    """moto_server on a free port; IAM on from the fourth request: the
    first three make a user, its policy and its access key, and from then
    on a request signed with any other key or secret is refused. Returns the
    environment a client of the lake needs (the standard AWS variables)."""
    import boto3

    port = free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "3"}
    services.start("moto", [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)], env)
    endpoint = f"http://127.0.0.1:{port}"

    def up():
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    _wait_for(up, "moto_server")
    bootstrap = {"endpoint_url": endpoint, "region_name": "us-east-1",
                 "aws_access_key_id": "bootstrap", "aws_secret_access_key": "bootstrap"}
    iam = boto3.client("iam", **bootstrap)
    iam.create_user(UserName="lake")
    iam.put_user_policy(UserName="lake", PolicyName="lake", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="lake")["AccessKey"]
    aws = {"AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1",
           "AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                 aws_access_key_id=key["AccessKeyId"],
                 aws_secret_access_key=key["SecretAccessKey"]).create_bucket(Bucket=BUCKET)
    return aws


def start_prefect(services) -> str:
    """``prefect server start`` on a free port: the API the flow and the
    workers report to (a flow without one starts a temporary server, and so
    would every worker)."""
    port = free_port()
    env = quiet_env(PREFECT_HOME=str(services.folder / "prefect-home"))
    services.start("prefect", [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1",
                               "--port", str(port)], env)
    url = f"http://127.0.0.1:{port}/api"

    def up():
        with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
            return reply.status == 200
    _wait_for(up, "the Prefect API server", timeout=240)
    return url


def start_cluster(services, s3, prefect_api) -> "Cluster":
    """``dask scheduler`` and two ``dask worker`` processes (one thread each,
    no nanny: a worker killed stays dead), with the lake's AWS settings, the
    Prefect API and a package cache root in their environment."""
    port = free_port()
    env = quiet_env(**s3, PREFECT_API_URL=prefect_api, MCPDELTA_CACHE=str(services.folder / "cache"),
                    PYTHONPATH=str(ROOT))
    services.start("scheduler", [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                 "--dashboard-address", ":0"], env)
    address = f"tcp://127.0.0.1:{port}"

    def up():
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    _wait_for(up, "the Dask scheduler")
    made = Cluster(services, address, env)
    made.ensure_workers(2)
    return made


def quiet_env(**extra):
    return {**os.environ, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_LOGGING_LEVEL": "WARNING", "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", **extra}


class Cluster:
    def __init__(self, services, address, env):
        self.services, self.address, self.env = services, address, env
        self.workers = []  # the worker processes (Popen), dead ones included
        self.started = 0

    def live_workers(self) -> dict:
        """pid -> worker name, of the workers the scheduler has."""
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            info = client.scheduler_info(n_workers=-1)["workers"]
            pids = client.run(os.getpid)
        return {pids[address]: w["name"] for address, w in info.items() if address in pids}

    def ensure_workers(self, count=2):
        """Start workers until ``count`` are alive (after a test killed one)."""
        from distributed import Client

        while sum(p.poll() is None for p in self.workers) < count:
            self.started += 1
            name = f"worker-{self.started}"
            self.workers.append(self.services.start(name, [
                str(BIN / "dask"), "worker", self.address, "--name", name, "--nthreads", "1",
                "--no-nanny", "--dashboard-address", ":0",
                "--local-directory", str(self.services.folder / name)], self.env))
        with Client(self.address, timeout=30) as client:
            client.wait_for_workers(count, timeout=240)
            deadline = time.monotonic() + 60  # a killed worker may still be listed a moment
            while len(client.scheduler_info(n_workers=-1)["workers"]) > count and time.monotonic() < deadline:
                time.sleep(0.3)
