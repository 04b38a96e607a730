"""The steps of the `provision_py` workflow (workflow.json), in Python.

    python3 examples/provisioning-python/worker.py --url http://127.0.0.1:8080

Runtime provisioning as in ../../../shared/seeds: steps add overrides to the
operation, one step creates the runtime from them, the next waits for it to
be ready. The cloud is the server's own Infrastructure API
(`/api/infrastructure/create|query|delete`, the simulated cloud with
`--driver sim`). Each step may run more than once (a retry, a worker that
died, a server restart), so each is idempotent.

Input:
    {"name": "rt1", "plan": "small"|"production", "location": "dc1",
     "overrides": {"COMPONENT": {"KEY": "VALUE"}},
     "secret_overrides": {"COMPONENT": {"KEY": "VALUE"}},   # sealed: see workflow.json
     "latency_ms": 1500,            # how long the simulated create takes
     "fail_at": "register_runtime"} # this step fails for good (to see compensation)
"""

import argparse
import json
import logging
import os
import signal
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
from stepwise_worker import NonRetryable, RetryAfter, Worker  # noqa: E402

log = logging.getLogger("provisioning")

DEFAULTS = {
    "small": {"core": {"replicas": "1"}, "monitoring": {"retention": "7d"}},
    "production": {"core": {"replicas": "3"}, "monitoring": {"retention": "30d"}},
}


class CloudError(Exception):
    """The Infrastructure API refused a request (a 4xx)."""

    def __init__(self, status, body):
        super().__init__(f"{status}: {body.get('localizedMessage', body)}")
        self.status = status
        self.body = body


class Cloud:
    """The server's Infrastructure API."""

    def __init__(self, base_url, token=None):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def call(self, what, body):
        req = urllib.request.Request(f"{self.base_url}/api/infrastructure/{what}",
                                     data=json.dumps(body).encode(), method="POST")
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=15) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as e:
            raw = e.read()
            e.close()
            if e.code >= 500:  # 503 is the cloud's "temporary"
                raise RetryAfter(1, f"infrastructure API answered {e.code}") from None
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"localizedMessage": raw.decode(errors="replace")}
            raise CloudError(e.code, body) from None
        except OSError as e:  # the server is away (restarting): the step waits
            raise RetryAfter(1, f"infrastructure API unreachable: {e}") from None


def location(task):
    return {"name": task.input.get("location", "dc1")}


def make_worker(url, name, token=None, cloud_token=None, concurrency=4, poll_wait=20.0):
    # Two tokens with --auth-tokens: a `worker` token may only call the task
    # routes, so the Infrastructure API needs a `write` one.
    worker = Worker(url, "provisioning", name, token, concurrency=concurrency,
                    poll_wait=poll_wait, max_backoff=2.0)
    cloud = Cloud(url, cloud_token or token)

    @worker.step("add_overrides")
    def add_overrides(task):
        fail_if_asked(task)
        plan = task.input.get("plan", "small")
        if plan not in DEFAULTS:
            raise NonRetryable(f"unknown plan '{plan}'")
        merged = {c: dict(kv) for c, kv in DEFAULTS[plan].items()}
        for component, values in (task.input.get("overrides") or {}).items():
            merged.setdefault(component, {}).update({k: str(v) for k, v in values.items()})
        # Secret overrides stay in the (sealed) input: the data only names
        # them, and create_runtime reads their values from the input.
        secret_keys = sorted(f"{c}/{k}"
                             for c, kv in (task.input.get("secret_overrides") or {}).items()
                             for k in kv)
        return {"overrides": merged, "secret_override_keys": secret_keys}

    @worker.step("create_runtime")
    def create_runtime(task):
        fail_if_asked(task)
        return {"runtime": create(cloud, task)}

    @worker.step("wait_for_runtime")
    def wait_for_runtime(task):
        fail_if_asked(task)
        rt = dict(task.data["runtime"])
        # Polls the cloud for a while, heartbeating (the library also beats
        # on its own); a create that takes longer is a retry_after, which
        # frees this worker's slot meanwhile.
        give_up = time.monotonic() + 15
        polls = 0
        recreated = False
        while True:
            try:
                got = cloud.call("query", {"infrastructureId": rt["infrastructure_id"],
                                           "requestId": rt["request_id"],
                                           "deploymentLocation": location(task)})
            except CloudError as e:
                if e.status != 400 or recreated:
                    raise
                # The cloud no longer knows the request: the simulated cloud
                # lives in the server's memory and a server restart forgets
                # it. Create the runtime again (a real cloud would not forget).
                log.warning("%r: cloud lost %s (%s); creating it again", task,
                            rt["infrastructure_id"], e)
                rt, recreated = create(cloud, task), True
                continue
            polls += 1
            if got["status"] == "COMPLETE":
                rt.update(status="running", outputs=got.get("outputs", {}))
                return {"runtime": rt}
            if got["status"] == "FAILED":
                f = got.get("failureDetails") or {}
                raise NonRetryable(f"runtime creation failed: {f.get('failureCode')} "
                                   f"{f.get('description', '')}".strip())
            if task.heartbeat({"polls": polls}):
                raise NonRetryable("canceled")  # the answer is stale anyway
            if time.monotonic() > give_up:
                raise RetryAfter(1, "runtime still being created")
            task.wait_canceled(0.2)

    @worker.step("register_runtime")
    def register_runtime(task):
        fail_if_asked(task)
        rt = task.data["runtime"]
        return {"registered": {"url": rt.get("outputs", {}).get("url"),
                               "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}

    # -- compensations (run in reverse when a later step fails) ---------------

    @worker.step("announce")
    def announce(task):
        # The child operation's only step: its input is fixed by the parent's
        # definition (the channel), so the parent's runtime is not in it.
        return {"announced_on": task.input.get("channel", "provisioning")}

    @worker.step("delete_runtime")
    def delete_runtime(task):
        rt = task.data.get("runtime")
        if not rt:
            return {}
        try:
            acc = cloud.call("delete", {"infrastructureId": rt["infrastructure_id"],
                                        "deploymentLocation": location(task)})
        except CloudError as e:
            if e.status == 400:  # already gone (or forgotten by a restarted sim)
                return {"runtime_deleted": True}
            raise
        give_up = time.monotonic() + 15
        while time.monotonic() < give_up:
            got = cloud.call("query", {"infrastructureId": acc["infrastructureId"],
                                       "requestId": acc["requestId"],
                                       "deploymentLocation": location(task)})
            if got["status"] == "COMPLETE":
                return {"runtime_deleted": True}
            if got["status"] == "FAILED":
                raise RuntimeError("delete failed")  # the policy tries again
            task.wait_canceled(0.2)
        raise RetryAfter(1, "runtime still being deleted")

    @worker.step("drop_overrides")
    def drop_overrides(task):
        return {"overrides_dropped": True}

    return worker


def properties(task):
    """The create request's properties: every override, as `provision_runtime`
    passes them (`overrides/COMPONENT/KEY`); secret ones from the input."""
    props = {f"overrides/{c}/{k}": {"value": v, "type": "string"}
             for c, kv in task.data["overrides"].items() for k, v in kv.items()}
    for c, kv in (task.input.get("secret_overrides") or {}).items():
        for k, v in kv.items():
            props[f"overrides/{c}/{k}"] = {"value": str(v), "type": "password"}
    return props


def create(cloud, task):
    """Starts the create; the operation's id as the request's idempotency key
    makes a repeated attempt find the same runtime instead of a second one."""
    name = task.input.get("name", task.operation_id)
    latency = int(task.input.get("latency_ms", 1500))
    template = (f"type: runtime\noutputs.url: https://{name}.runtimes.example\n"
                f"latency_ms: {latency}\n")
    acc = cloud.call("create", {
        "template": template, "templateType": "TOSCA",
        "systemProperties": {"requestId": {"value": task.operation_id, "type": "string"},
                             "resourceName": {"value": name, "type": "string"}},
        "properties": properties(task), "deploymentLocation": location(task)})
    return {"infrastructure_id": acc["infrastructureId"], "request_id": acc["requestId"],
            "status": "creating"}


def fail_if_asked(task):
    if task.input.get("fail_at") == task.step:
        raise NonRetryable(f"asked to fail at {task.step}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("STEPWISE_URL", "http://127.0.0.1:8080"))
    p.add_argument("--token", default=os.environ.get("STEPWISE_TOKEN"),
                   help="bearer token for the task routes (a worker token)")
    p.add_argument("--cloud-token", default=os.environ.get("STEPWISE_CLOUD_TOKEN"),
                   help="bearer token for /api/infrastructure (a write token; default --token)")
    p.add_argument("--name", default=f"py-{os.getpid()}")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--poll-wait", type=float, default=20.0)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    worker = make_worker(args.url, args.name, args.token, args.cloud_token, args.concurrency,
                         args.poll_wait)
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    signal.signal(signal.SIGINT, lambda *_: worker.stop())
    worker.run()


if __name__ == "__main__":
    main()
