"""A stepwise task worker: runs the `task` steps of workflows defined as data.

Python 3.11, standard library only. A worker polls one queue of a stepwise
server (`POST /api/v1/tasks/poll`, a long poll), runs the handler registered
for each task's step, heartbeats while it runs, and answers the task once:
`complete` with the handler's returned dict, or `fail` when it raises.

    worker = Worker("http://127.0.0.1:8080", "billing", "w-1")

    @worker.step("charge")
    def charge(task):
        if task.cancel_requested:
            raise NonRetryable("canceled")
        return {"charge_id": "ch_1"}       # merged into the operation's data

    worker.run()                           # until worker.stop()

The server may go away at any time (a restart, a network cut): every call is
retried with capped backoff, and an answer that could not be sent is sent
again until the server takes it or refuses it (409 `stale_task`: the attempt
is no longer current, which is logged and otherwise ignored).

The task's `input` may hold secrets, so this module never logs it.
"""

import json
import logging
import random
import re
import threading
import time
import urllib.error
import urllib.request

__all__ = ["Worker", "Task", "RetryAfter", "NonRetryable", "ServerError", "parse_duration"]

log = logging.getLogger("stepwise_worker")


class RetryAfter(Exception):
    """Raise from a handler to have the step tried again after `seconds`."""

    def __init__(self, seconds, message=None):
        super().__init__(message or f"retry after {seconds}s")
        self.seconds = seconds


class NonRetryable(Exception):
    """Raise from a handler to fail the step for good (no retry)."""


class ServerError(Exception):
    """The server answered with a 4xx (a 5xx is retried)."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class _Unreachable(Exception):
    """No answer (connection refused or cut, timeout) or a 5xx: worth trying again."""


_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text):
    """Reads the server's durations (`500ms`, `30s`, `1h30m`) as seconds."""
    if text is None:
        return None
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def _format_duration(seconds):
    return f"{max(0, round(seconds * 1000))}ms"


class _Client:
    """JSON over HTTP to one server; raises _Unreachable or ServerError."""

    def __init__(self, base_url, token=None):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def post(self, path, body, timeout):
        data = json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method="POST")
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return json.loads(res.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            e.close()
            if e.code >= 500:
                raise _Unreachable(f"HTTP {e.code}") from None
            try:
                err = json.loads(raw).get("error", {})
            except (ValueError, AttributeError):
                err = {}
            raise ServerError(e.code, err.get("code", ""), err.get("message", "")) from None
        except (OSError, ValueError) as e:  # URLError, refused, reset, timeout, torn body
            raise _Unreachable(str(e)) from None


class Task:
    """One attempt of a step, as the poll handed it to this worker."""

    def __init__(self, worker, raw):
        self._worker = worker
        self.token = raw["token"]
        self.operation_id = raw["operation_id"]
        self.workflow = raw["workflow"]
        self.step = raw["step"]
        self.attempt = raw["attempt"]
        self.input = raw.get("input") or {}  # may hold secrets: never log it
        self.data = raw.get("data") or {}
        self.deadline = raw.get("deadline")
        self.heartbeat_timeout = parse_duration(raw.get("heartbeat_timeout"))
        self.details = raw.get("details") or {}  # the previous attempt's last heartbeat
        self._lock = threading.Lock()
        self._beat_details = None
        self._cancel = threading.Event()

    @property
    def cancel_requested(self):
        """True once the server no longer waits for this attempt (canceled,
        paused, timed out, or answered stale): the handler may give up."""
        return self._cancel.is_set()

    def wait_canceled(self, seconds):
        """Sleeps up to `seconds`, waking early on cancel; returns cancel_requested."""
        return self._cancel.wait(seconds)

    def heartbeat(self, details=None):
        """Sends a heartbeat now (with `details`, which later automatic
        heartbeats repeat) and returns cancel_requested. A server out of
        reach is not an error here: the next heartbeat tries again."""
        if details is not None:
            with self._lock:
                self._beat_details = dict(details)
        self._worker._beat(self)
        return self.cancel_requested

    def __repr__(self):
        return f"<Task {self.workflow}/{self.step} op={self.operation_id} attempt={self.attempt}>"


class Worker:
    """Polls `queue` on the server at `base_url` and runs registered steps.

    concurrency: tasks run at once (one thread each); max_per_poll: most
    tasks one poll takes; poll_wait: seconds a long poll waits (at most 300);
    max_backoff: the longest pause between tries while the server is away.
    """

    def __init__(self, base_url, queue, worker_name, token=None, *, concurrency=1,
                 max_per_poll=10, poll_wait=20.0, max_backoff=30.0, request_timeout=30.0):
        self.queue = queue
        self.worker_name = worker_name
        self.concurrency = max(1, concurrency)
        self.max_per_poll = max(1, min(100, max_per_poll))
        self.poll_wait = min(300.0, poll_wait)
        self.max_backoff = max_backoff
        self.request_timeout = request_timeout
        self._client = _Client(base_url, token)
        self._handlers = {}
        self._stop = threading.Event()
        self._slots = threading.Semaphore(self.concurrency)
        self._running = set()
        self._running_lock = threading.Lock()

    # -- registration -------------------------------------------------------

    def step(self, name):
        """Decorator: `@worker.step("charge")` runs the function for tasks of
        step `charge` (a compensation's task carries the compensation's name)."""
        def register(fn):
            self._handlers[name] = fn
            return fn
        return register

    def add_step(self, name, fn):
        self._handlers[name] = fn

    # -- the loop -----------------------------------------------------------

    def run(self):
        """Polls and runs tasks until stop(); then waits for running tasks."""
        log.info("worker %s polling queue %s", self.worker_name, self.queue)
        failures = 0
        while not self._stop.is_set():
            n = self._take_slots()
            if n == 0:
                continue
            try:
                raws = self._poll(n)
                failures = 0
            except (_Unreachable, ServerError) as e:
                raws = []
                failures += 1
                log.warning("poll failed (%s); trying again", e)
                self._stop.wait(self._backoff(failures))
            for _ in range(n - len(raws)):
                self._slots.release()
            for raw in raws:
                self._start(Task(self, raw))
        with self._running_lock:
            threads = list(self._running)
        for t in threads:
            t.join()
        log.info("worker %s stopped", self.worker_name)

    def stop(self):
        """Stops polling; run() returns once running tasks are answered. A
        poll under way may still hand over tasks: they are run too, so that
        none waits for its timeout."""
        self._stop.set()

    def run_in_thread(self):
        """Starts run() on a thread (daemon) and returns the thread."""
        t = threading.Thread(target=self.run, name=f"stepwise-{self.worker_name}", daemon=True)
        t.start()
        return t

    def _take_slots(self):
        # Waits for one free slot (waking now and then to see stop()), then
        # takes every other free one so that one poll fills them all.
        if not self._slots.acquire(timeout=0.5):
            return 0
        n = 1
        while n < self.max_per_poll and self._slots.acquire(blocking=False):
            n += 1
        if self._stop.is_set():
            for _ in range(n):
                self._slots.release()
            return 0
        return n

    def _poll(self, n):
        wait = self.poll_wait
        body = {"queue": self.queue, "worker": self.worker_name, "max": n,
                "wait": _format_duration(wait)}
        got = self._client.post("/api/v1/tasks/poll", body, timeout=wait + self.request_timeout)
        return got.get("tasks", [])

    def _backoff(self, failures):
        # Capped exponential backoff with jitter, so that many workers do not
        # all come back at the same instant after a server restart.
        return min(self.max_backoff, 0.2 * 2 ** min(failures, 10)) * random.uniform(0.5, 1.0)

    def _start(self, task):
        t = threading.Thread(target=self._run_task, args=(task,),
                             name=f"stepwise-task-{task.step}", daemon=True)
        with self._running_lock:
            self._running.add(t)
        t.start()

    # -- one task -----------------------------------------------------------

    def _run_task(self, task):
        done = threading.Event()
        beater = None
        try:
            if task.heartbeat_timeout:
                beater = threading.Thread(target=self._beat_loop, args=(task, done), daemon=True)
                beater.start()
            path, body = self._outcome(task)
            done.set()
            if beater:
                # No beat may reach the server after the answer: the server
                # takes a beat of this attempt number for the next step's
                # task (tokens do not name the step).
                beater.join()
            self._answer(task, path, body)
        finally:
            done.set()
            self._slots.release()
            with self._running_lock:
                self._running.discard(threading.current_thread())

    def _outcome(self, task):
        handler = self._handlers.get(task.step)
        if handler is None:
            log.error("%r: no handler for step %s", task, task.step)
            return "fail", {"error": f"worker {self.worker_name} has no handler for step "
                                     f"'{task.step}'", "non_retryable": True}
        log.info("%r: running", task)
        try:
            result = handler(task)
        except RetryAfter as e:
            log.info("%r: retry after %ss: %s", task, e.seconds, e)
            return "fail", {"error": str(e), "retry_after": _format_duration(e.seconds)}
        except NonRetryable as e:
            log.warning("%r: failed for good: %s", task, e)
            return "fail", {"error": str(e) or type(e).__name__, "non_retryable": True}
        except Exception as e:  # the step's retry policy decides
            log.exception("%r: failed", task)
            return "fail", {"error": f"{type(e).__name__}: {e}"}
        if result is None:
            result = {}
        if not isinstance(result, dict):
            return "fail", {"error": f"step handler returned {type(result).__name__}, "
                                     "not a dict", "non_retryable": True}
        return "complete", {"data": result}

    def _answer(self, task, what, body):
        # Sent until the server takes it: an answer lost to a restart would
        # cost the attempt a whole timeout. The token stays valid across a
        # server restart, so sending it again later is right.
        failures = 0
        while True:
            try:
                self._client.post(f"/api/v1/tasks/{task.token}/{what}", body,
                                  timeout=self.request_timeout)
                log.info("%r: %s sent", task, what)
                return True
            except ServerError as e:
                if e.status == 409:
                    log.info("%r: %s not taken, the attempt is no longer current (%s)",
                             task, what, e.code)
                else:
                    log.error("%r: %s refused: %s", task, what, e)
                return False
            except _Unreachable as e:
                failures += 1
                if self._stop.is_set() and failures > 5:
                    # Stopping and the server is still away: give up; the
                    # attempt times out on the server and is tried again.
                    log.error("%r: stopping; %s given up", task, what)
                    return False
                delay = self._backoff(failures)
                log.warning("%r: %s not sent (%s); again in %.1fs", task, what, e, delay)
                time.sleep(delay)

    def _beat_loop(self, task, done):
        # A third of the timeout: two beats may be lost before the server
        # gives up on the attempt.
        interval = max(0.05, task.heartbeat_timeout / 3)
        while not done.wait(interval):
            self._beat(task)

    def _beat(self, task):
        with task._lock:
            details = task._beat_details
        body = {"details": details} if details is not None else {}
        try:
            got = self._client.post(f"/api/v1/tasks/{task.token}/heartbeat", body,
                                    timeout=self.request_timeout)
            if got.get("cancel_requested"):
                if not task.cancel_requested:
                    log.info("%r: cancel requested", task)
                task._cancel.set()
        except ServerError as e:
            if e.status == 409:  # the attempt is over: its answer would be stale
                task._cancel.set()
            else:
                log.warning("%r: heartbeat refused: %s", task, e)
        except _Unreachable as e:
            log.warning("%r: heartbeat not sent: %s", task, e)
