"""End to end: the provision_py workflow on a real `stepwise serve` (temporary
SQLite store) with worker.py as a separate process, through a SIGKILL of
the worker in the middle of a task and a SIGKILL of the server in the middle
of the run. Skipped unless STEPWISE_BIN names the server binary.

    STEPWISE_BIN=build/stepwise python3 -m unittest -v examples/provisioning-python/test_e2e.py
"""

import os
import signal
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from stepwise_testing import BIN, ServerTest, eventually  # noqa: E402

QUEUE = "provisioning"
STEPS = ["add_overrides", "approval", "create_runtime", "wait_for_runtime", "settle",
         "register_runtime", "announce", "announce:wait"]
SECRET = "s3cr3t-e2e-token"
ENDED = {"succeeded", "failed", "canceled"}


class ProvisioningE2E(ServerTest):
    prefix = "stepwise-e2e-"

    def setUp(self):
        super().setUp()
        # The documented way to apply them: the child's workflow first.
        for name in ("announce.json", "workflow.json"):
            subprocess.run([BIN, "workflows", "apply", "-f", os.path.join(HERE, name),
                            "--url", self.server.url], check=True, capture_output=True, timeout=30)
        self.workers = []

    def start_worker(self, name):
        log = open(os.path.join(self.tmp.name, f"{name}.log"), "wb")
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, "worker.py"),
                                 "--url", self.server.url, "--name", name,
                                 "--concurrency", "4", "--poll-wait", "1"],
                                stdout=log, stderr=subprocess.STDOUT)
        self.workers.append((proc, log))
        self.addCleanup(self.end_worker, proc, log)
        return proc

    def end_worker(self, proc, log, sig=signal.SIGTERM):
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()

    def start(self, name, **more):
        op = self.api.start("provision_py", {
            "name": name, "plan": "small", "overrides": {"core": {"replicas": "2"}},
            "secret_overrides": {"connector": {"token": SECRET}}, **more})
        # Approved at once: a signal sent before its wait is kept for it.
        status, body = self.api.call("POST", f"/api/v1/operations/{op}/signals/approved",
                                     {"by": "e2e"})
        self.assertEqual(status, 202, body)
        return op

    def events(self, op):
        return self.api.events(op)

    def in_step(self, op, step):
        """The step's attempt has started and has not succeeded."""
        evs = self.events(op)
        started = any(e["type"] == "step_started" and e.get("step") == step for e in evs)
        done = any(e["type"] == "step_succeeded" and e.get("step") == step for e in evs)
        return started and not done

    def story(self, op):
        """What a failed assertion shows: the operation, its events, and what
        the workers logged about it."""
        lines = [str(self.api.operation(op))] + [str(e) for e in self.events(op)]
        for proc, log in self.workers:
            log.flush()
            with open(log.name, errors="replace") as f:
                lines += [f"{os.path.basename(log.name)}: {x.rstrip()}" for x in f if op in x]
        return "\n".join(lines)

    def cut_short(self, op, step):
        return any(e["type"] in ("step_timed_out", "step_retry_scheduled")
                   and e.get("step") == step for e in self.events(op))

    def test_survives_worker_and_server_kills(self):
        worker = self.start_worker("w1")
        first = [self.start(f"rt-a{i}", latency_ms=4000) for i in range(4)]

        # Every operation is in wait_for_runtime (the only task step left to
        # them) and a worker holds at least one of those tasks: kill it then.
        def worker_busy_waiting():
            q = self.api.queue(QUEUE)
            return (all(self.in_step(op, "wait_for_runtime") for op in first)
                    and q["taken"] >= 1)
        eventually(worker_busy_waiting, 20, what="the worker to hold a wait_for_runtime task")
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        self.start_worker("w2")
        # The dead worker's heartbeats stop: its attempts time out and are
        # tried again (before the server dies too, which would otherwise
        # hand the same attempts out again at its restart).
        eventually(lambda: [op for op in first if self.cut_short(op, "wait_for_runtime")],
                   20, what="a wait_for_runtime attempt of the killed worker to time out")

        second = [self.start(f"rt-b{i}", latency_ms=3000) for i in range(3)]
        # The server dies while operations of the second batch run.
        eventually(lambda: any(self.in_step(op, "wait_for_runtime") for op in second)
                   and self.api.queue(QUEUE)["taken"] >= 1,
                   20, what="a second-batch wait_for_runtime task to be taken")
        self.server.kill()
        self.server.start()

        ops = first + second
        for op in ops:
            self.api.wait_state(op, ENDED, timeout=60)
        for op in ops:
            got = self.api.operation(op)
            self.assertEqual(got["state"], "succeeded", self.story(op))
            # "creating" here means wait_for_runtime was completed by a late
            # answer of create_runtime's attempt (the server bug that
            # clients/python's test_repeated_answer_is_stale shows).
            self.assertEqual(got["data"]["runtime"]["status"], "running", self.story(op))
            self.assertTrue(got["data"]["registered"]["url"].startswith("https://rt-"))
            self.assertEqual(got["input"]["secret_overrides"], "***")
            evs = self.events(op)
            for step in STEPS:
                n = sum(1 for e in evs if e["type"] == "step_succeeded" and e.get("step") == step)
                self.assertEqual(n, 1, f"step {step} succeeded {n} times\n" + self.story(op))
            self.assertEqual(sum(1 for e in evs if e["type"] == "operation_succeeded"), 1)
            # The child ran its task once, on the same queue.
            kid = self.api.operation(next(iter(got["data"]["children"]["announce"].values())))
            self.assertEqual(kid["state"], "succeeded")
            self.assertEqual(kid["data"]["announced_on"], "provisioning")

        # The secret reaches the cloud but no log.
        for proc, log in self.workers:
            log.flush()
            with open(log.name, errors="replace") as f:
                self.assertNotIn(SECRET, f.read())
        self.assertNotIn(SECRET, self.server.log_text())

    def test_failure_compensates_in_reverse(self):
        self.start_worker("w1")
        op = self.start("rt-fail", latency_ms=500, fail_at="register_runtime")
        got = self.api.wait_state(op, ENDED, timeout=30)
        self.assertEqual(got["state"], "failed")
        self.assertIn("asked to fail at register_runtime", got["error"])
        evs = self.events(op)
        comp = [(e["type"], e["step"]) for e in evs if e["type"].startswith("compensation_")]
        self.assertEqual(comp, [("compensation_started", "create_runtime"),
                                ("compensation_succeeded", "create_runtime"),
                                ("compensation_started", "add_overrides"),
                                ("compensation_succeeded", "add_overrides")])
        failed = [i for i, e in enumerate(evs) if e["type"] == "step_failed"]
        first_comp = next(i for i, e in enumerate(evs) if e["type"] == "compensation_started")
        self.assertEqual([evs[i]["step"] for i in failed], ["register_runtime"])
        self.assertLess(failed[0], first_comp)
        # The runtime is gone from the cloud: deleting it again is refused.
        rt = got["data"]["runtime"]
        status, body = self.api.call("POST", "/api/infrastructure/delete", {
            "infrastructureId": rt["infrastructure_id"], "deploymentLocation": {"name": "dc1"}})
        self.assertEqual(status, 400, body)


if __name__ == "__main__":
    unittest.main()
