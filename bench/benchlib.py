"""What bench/ratchet and bench/ratios share: running the bench, reading
its JSON line, a server's readiness, fresh PostgreSQL databases."""
import json
import os
import re
import socket
import subprocess
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def bench_line(out):
    """The last JSON line the bench printed."""
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if not lines:
        raise RuntimeError("the bench printed no figures")
    return json.loads(lines[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def remove_sqlite(db):
    """Removes an SQLite file and its WAL, so that a run starts empty."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


def wait_listening(p, log, tries=600, pause=0.2):
    """The URL `stepwise serve` (process `p`, output in file `log`) listens
    on once /readyz answers; None when it exits or never gets ready."""
    for _ in range(tries):
        with open(log) as f:
            m = re.search(r"stepwise listening on (http:\S+)", f.read())
        if m:
            try:
                urllib.request.urlopen(m.group(1) + "/readyz", timeout=5)
                return m.group(1)
            except OSError:
                pass
        if p.poll() is not None:
            return None
        time.sleep(pause)
    return None


def psql(uri, sql):
    """The first column of the first row `sql` returns, as text."""
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    return run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c", sql],
               stdout=subprocess.PIPE, env=env).stdout.strip()


def fresh_db(uri, name):
    """A URI of a new, empty database `name` on the cluster of `uri`."""
    psql(uri, "DROP DATABASE IF EXISTS %s" % name)
    psql(uri, "CREATE DATABASE %s" % name)
    u = urllib.parse.urlsplit(uri)
    return urllib.parse.urlunsplit(u._replace(path="/" + name))
