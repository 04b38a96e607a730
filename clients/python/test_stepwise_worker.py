"""The worker library against a real `stepwise serve` (STEPWISE_BIN names the
binary; skipped without it). Each test gets its own server and store.

    STEPWISE_BIN=build/stepwise python3 -m unittest -v clients/python/test_stepwise_worker.py
"""

import logging
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stepwise_testing import BIN, Api, Server, ServerTest, eventually  # noqa: E402
from stepwise_worker import NonRetryable, RetryAfter, Worker  # noqa: E402



def task_step(name, queue="q", **more):
    return {"name": name, "kind": "task", "queue": queue, **more}


class WorkerTest(ServerTest):
    prefix = "stepwise-py-"

    def worker(self, **opts):
        opts.setdefault("poll_wait", 1.0)
        opts.setdefault("max_backoff", 0.5)
        w = Worker(self.server.url, "q", "test-worker", **opts)
        return w

    def run_worker(self, w):
        t = w.run_in_thread()

        def stop():
            w.stop()
            t.join(15)
            self.assertFalse(t.is_alive(), "the worker did not stop")
        self.addCleanup(stop)

    def step_events(self, op_id, step, kind):
        return [e for e in self.api.events(op_id) if e["type"] == kind and e.get("step") == step]

    def test_poll_and_complete(self):
        self.api.put_workflow("add", {"steps": [task_step("add")]})
        w = self.worker(concurrency=3)
        seen = []

        @w.step("add")
        def add(task):
            seen.append((task.workflow, task.step, task.attempt))
            return {"sum": task.input["a"] + task.input["b"]}
        self.run_worker(w)
        ops = [self.api.start("add", {"a": i, "b": 10}) for i in range(5)]
        for i, op in enumerate(ops):
            done = self.api.wait_state(op, {"succeeded", "failed"})
            self.assertEqual(done["state"], "succeeded")
            self.assertEqual(done["data"]["sum"], i + 10)
        self.assertEqual(sorted(seen), [("add", "add", 1)] * 5)

    def test_retry_after_then_success(self):
        # The policy alone would wait a minute: finishing sooner shows that
        # retry_after was sent and honoured.
        self.api.put_workflow("flaky", {"steps": [task_step(
            "flaky", retry={"max_attempts": 3, "initial": "1m"})]})
        w = self.worker()
        attempts = []

        @w.step("flaky")
        def flaky(task):
            attempts.append(task.attempt)
            if task.attempt == 1:
                raise RetryAfter(0.2, "not yet")
            return {"ok": True}
        self.run_worker(w)
        op = self.api.start("flaky")
        done = self.api.wait_state(op, {"succeeded", "failed"}, timeout=20)
        self.assertEqual(done["state"], "succeeded")
        self.assertEqual(attempts, [1, 2])
        self.assertEqual(len(self.step_events(op, "flaky", "step_retry_scheduled")), 1)

    def test_non_retryable_failure(self):
        self.api.put_workflow("doomed", {"steps": [task_step(
            "doomed", retry={"max_attempts": 5, "initial": "100ms"})]})
        w = self.worker()
        calls = []

        @w.step("doomed")
        def doomed(task):
            calls.append(task.attempt)
            raise NonRetryable("bad input")
        self.run_worker(w)
        op = self.api.start("doomed")
        done = self.api.wait_state(op, {"succeeded", "failed"})
        self.assertEqual(done["state"], "failed")
        self.assertIn("bad input", done["error"])
        self.assertEqual(calls, [1])

    def test_heartbeat_sees_cancel(self):
        self.api.put_workflow("long", {"steps": [task_step("long", heartbeat_timeout="1s")]})
        w = self.worker()
        started = threading.Event()
        outcome = {}

        @w.step("long")
        def long(task):
            started.set()
            # Heartbeats go on meanwhile (every third of a second); the
            # cancel shows through them.
            outcome["canceled"] = task.wait_canceled(20)
            return {"never": "applied"}
        self.run_worker(w)
        op = self.api.start("long")
        self.assertTrue(started.wait(20))
        # Several heartbeats keep the attempt alive past its 1 s timeout.
        eventually(lambda: self.api.queue("q")["taken"] == 1, what="the task to be taken")
        self.api.ok("POST", f"/api/v1/operations/{op}/cancel", {})
        done = self.api.wait_state(op, {"canceled", "failed", "succeeded"})
        self.assertEqual(done["state"], "canceled")
        eventually(lambda: "canceled" in outcome, what="the handler to see the cancel")
        self.assertTrue(outcome["canceled"])
        self.assertNotIn("never", self.api.operation(op)["data"])

    def test_stale_answer_is_ignored(self):
        # The first attempt times out while its handler still runs; its late
        # answer is 409 stale_task, which the worker logs and goes on.
        self.api.put_workflow("slow", {"steps": [task_step(
            "slow", timeout="1s", retry={"max_attempts": 2, "initial": "100ms"})]})
        w = self.worker(concurrency=2)

        @w.step("slow")
        def slow(task):
            if task.attempt == 1:
                eventually(lambda: self.step_events(task.operation_id, "slow", "step_timed_out")
                           or self.step_events(task.operation_id, "slow", "step_retry_scheduled"),
                           what="attempt 1 to time out")
            return {"attempt": task.attempt}
        self.run_worker(w)
        with self.assertLogs("stepwise_worker", logging.INFO) as logs:
            op = self.api.start("slow")
            done = self.api.wait_state(op, {"succeeded", "failed"})
            eventually(lambda: any("no longer current" in m for m in logs.output),
                       what="the stale answer to be logged")
        self.assertEqual(done["state"], "succeeded")
        self.assertEqual(done["data"]["attempt"], 2)
        self.assertEqual(len(self.step_events(op, "slow", "step_succeeded")), 1)

    # A token names its step too: a resent answer of step a's attempt 1 must
    # not complete step b's attempt 1, whose task nobody has taken yet.
    def test_repeated_answer_is_stale(self):
        self.api.put_workflow("twice", {"steps": [task_step("a"), task_step("b")]})
        op = self.api.start("twice")
        task = eventually(lambda: self.api.ok("POST", "/api/v1/tasks/poll", {
            "queue": "q", "worker": "by-hand", "wait": "1s"})["tasks"], what="step a's task")[0]
        self.assertEqual(task["step"], "a")
        path = f"/api/v1/tasks/{task['token']}/complete"
        self.assertEqual(self.api.call("POST", path, {"data": {"a": 1}})[0], 200)
        eventually(lambda: self.step_events(op, "b", "step_started"), what="step b to start")
        status, body = self.api.call("POST", path, {"data": {"a": 2}})
        self.assertEqual((status, body["error"]["code"] if status != 200 else None),
                         (409, "stale_task"), f"step b: {self.api.operation(op)['steps'][1]}")

    def test_reconnects_after_server_restart(self):
        self.api.put_workflow("hold", {"steps": [task_step("hold")]})
        w = self.worker()
        started, release = threading.Event(), threading.Event()

        @w.step("hold")
        def hold(task):
            if task.input.get("wait"):
                started.set()
                release.wait(30)
            return {"done": task.input["n"]}
        self.run_worker(w)
        first = self.api.start("hold", {"n": 1, "wait": True})
        self.assertTrue(started.wait(20))
        # The server dies while the handler runs; the handler's answer is
        # sent while it is away and must get through once it is back.
        self.server.kill()
        release.set()
        self.server.start()
        second = self.api.start("hold", {"n": 2})
        for op, n in ((first, 1), (second, 2)):
            done = self.api.wait_state(op, {"succeeded", "failed"}, timeout=30)
            self.assertEqual(done["state"], "succeeded")
            self.assertEqual(done["data"]["done"], n)
            self.assertEqual(len(self.step_events(op, "hold", "step_succeeded")), 1)


    def test_worker_token(self):
        # With --auth-tokens, a worker token may take and answer tasks.
        self.server.stop()
        tokens = os.path.join(self.tmp.name, "tokens")
        with open(tokens, "w") as f:
            f.write("worker py-workers worker-token-0123456789\nwrite ops write-token-0123456789\n")
        self.server = Server(BIN, self.tmp.name, ["--auth-tokens", tokens]).start()
        self.addCleanup(self.server.stop)
        self.api = Api(self.server.url, "write-token-0123456789")
        self.api.put_workflow("auth", {"steps": [task_step("auth")]})
        w = Worker(self.server.url, "q", "token-worker", "worker-token-0123456789",
                   poll_wait=1.0, max_backoff=0.5)
        w.step("auth")(lambda task: {"who": "worker"})
        self.run_worker(w)
        op = self.api.start("auth")
        done = self.api.wait_state(op, {"succeeded", "failed"})
        self.assertEqual(done["state"], "succeeded")
        self.assertEqual(done["data"]["who"], "worker")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    unittest.main()
