"""Test helpers: a real `stepwise serve` on a temporary SQLite store, and a
small JSON client for the API. Used by this folder's tests and by
examples/provisioning-python; standard library only.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def eventually(check, timeout=20.0, interval=0.05, what="condition"):
    """Calls check() until it returns something truthy, at most `timeout`
    seconds; returns that value or raises AssertionError."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Api:
    """JSON over HTTP; returns (status, body) and never raises on a status."""

    def __init__(self, base_url, token=None):
        self.base_url = base_url
        self.token = token

    def call(self, method, path, body=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return res.status, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            e.close()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode(errors="replace")

    def ok(self, method, path, body=None):
        status, got = self.call(method, path, body)
        if status >= 300:
            raise AssertionError(f"{method} {path}: {status} {got}")
        return got

    def put_workflow(self, name, definition):
        return self.ok("PUT", f"/api/v1/workflows/{name}", definition)

    def start(self, workflow, input=None, key=None):
        body = {"workflow": workflow, "input": input or {}}
        if key:
            body["idempotency_key"] = key
        return self.ok("POST", "/api/v1/operations", body)["id"]

    def operation(self, op_id):
        return self.ok("GET", f"/api/v1/operations/{op_id}")

    def events(self, op_id):
        return self.ok("GET", f"/api/v1/operations/{op_id}/events")["items"]

    def queue(self, name):
        for q in self.ok("GET", "/api/v1/tasks/queues")["items"]:
            if q["name"] == name:
                return q
        return {"name": name, "ready": 0, "taken": 0, "pollers": 0, "workers": []}

    def wait_state(self, op_id, states, timeout=30.0):
        """Waits until the operation's state is one of `states`; returns it."""
        states = {states} if isinstance(states, str) else set(states)

        def check():
            try:
                op = self.operation(op_id)
            except (OSError, AssertionError):  # a server restarting
                return None
            return op if op["state"] in states else None
        return eventually(check, timeout, 0.1, f"{op_id} to be {'/'.join(sorted(states))}")


class Server:
    """`stepwise serve` as a child process; start() again after kill() runs
    it on the same port and store, as a restart would."""

    def __init__(self, binary, workdir, extra_args=()):
        self.binary = binary
        self.workdir = workdir
        self.store = "sqlite:" + os.path.join(workdir, "stepwise.db")
        self.extra_args = list(extra_args)
        self.port = 0
        self.proc = None
        self.starts = 0

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=20.0):
        self.starts += 1
        logpath = os.path.join(self.workdir, f"server-{self.starts}.log")
        self._log = open(logpath, "wb")
        args = [self.binary, "serve", "--listen", f"127.0.0.1:{self.port}",
                "--store", self.store, "--log-level", "info"] + self.extra_args
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=self.workdir)
        # Port 0 the first time: the server picks one and says which.
        def listening():
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited {self.proc.returncode}: "
                                     + _read(logpath)[-2000:])
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", _read(logpath))
            return m and int(m.group(1))
        self.port = eventually(listening, timeout, 0.05, "the server to listen")
        api = Api(self.url)

        def ready():
            try:
                return api.call("GET", "/readyz", timeout=2)[0] == 200
            except OSError:
                return False
        eventually(ready, timeout, 0.05, "/readyz")
        return self

    def kill(self):
        """SIGKILL: no drain, no last checkpoint."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self._log.close()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc:
            self._log.close()

    def log_text(self):
        return "".join(_read(os.path.join(self.workdir, f"server-{i}.log"))
                       for i in range(1, self.starts + 1))


BIN = os.environ.get("STEPWISE_BIN")


@unittest.skipUnless(BIN, "STEPWISE_BIN is not set")
class ServerTest(unittest.TestCase):
    """A test against its own `stepwise serve` (STEPWISE_BIN) on a temporary
    SQLite store: `self.server`, `self.api`, `self.tmp`."""

    prefix = "stepwise-"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix=self.prefix)
        self.addCleanup(self.tmp.cleanup)
        self.server = Server(BIN, self.tmp.name).start()
        self.addCleanup(self.server.stop)
        self.api = Api(self.server.url)
