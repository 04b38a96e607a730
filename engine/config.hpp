#pragma once

#include <functional>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/clock.hpp"
#include "engine/key_ring.hpp"
#include "engine/log.hpp"
#include "engine/requests.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// Everything an embedding program sets to start an engine.
struct engine_config {
  /// `sqlite:PATH` (default) or `postgresql://...`.
  std::string store_uri = "sqlite:./stepwise.db";
  /// Threads that run steps (blocking work). More threads than cores cost
  /// context switches on trivial steps (measured on 2 cores: 4 beat 8 by
  /// about 15 %); raise it for steps that wait on the network.
  size_t step_workers = 4;
  /// Threads that serve reads of operations not in memory.
  size_t read_workers = 2;
  /// Most checkpoints written in one transaction.
  size_t max_batch = 8192;
  /// Group commit under load: a commit of fewer than 64 checkpoints waits
  /// up to this long for more while at least four times as many operations
  /// are live (a lone operation never waits). Each commit costs its sync
  /// and the pages it touches however little it carries: a trickle of
  /// results (steps that wait on a cloud API) otherwise pays that for each
  /// one. Zero (the default here; `stepwise serve` sets 5 ms): commit at
  /// once. The wait is in real time, also with a virtual clock.
  duration commit_linger{0};
  /// An operation waiting at least this long is passivated: its actor
  /// stops and only its wake-up time stays in memory. A wait on a watcher
  /// (a monitored task), whose length nobody knows, passivates once it
  /// has lasted this long; zero: at once.
  duration passivate_after = std::chrono::seconds(1);
  /// A passivated operation is read back from the store this long before
  /// it is due (at most half of `passivate_after`), and its actor then
  /// waits for the exact time: under a burst of wake-ups, reading
  /// thousands of operations is not added to how late each one runs.
  duration wake_lead = std::chrono::milliseconds(500);
  /// A blocking step that a timer begins (a retry, the step after a
  /// sleep) is handed to the workers this long before it is due (at most
  /// half of `wake_lead`), and reaches them on the clock's own thread when
  /// due: the actor's part is done ahead, so a burst of due timers does
  /// not wait behind other actors' work. Zero: at the due time.
  duration dispatch_lead = std::chrono::milliseconds(50);
  /// Recovery reads the active operations this many at a time (a store
  /// shared by several processes: all that are claimed at once). Requests
  /// wait until the last page is read.
  size_t recovery_page = 10000;
  /// How long the embedding functions wait for the engine's answer.
  duration request_timeout = std::chrono::seconds(30);
  /// Most operations listed per page.
  size_t max_page = 500;
  /// Shared stores (PostgreSQL): the lease of this process on its
  /// operations. A process that stops renewing it (crashed, cut off) loses
  /// its operations to the others within `lease_ttl + lease_ttl / 3`; a
  /// live one renews it with every commit, or every `lease_ttl / 3` when
  /// idle. Stores serving one process (SQLite) ignore it.
  duration lease_ttl = std::chrono::seconds(10);
  /// Shared stores: what the other processes (and `GET /api/v1/cluster`)
  /// see of this one: the URL its clients reach it at, and its build.
  std::string advertise_url{};
  std::string build_version{};
  /// Shared stores: how long a control request stored for the process
  /// that drives its operation waits to hear that it was carried out
  /// (answered then as one server answers) before it is answered anyway
  /// (stored: carried out when that process, or the one that takes its
  /// operations over, gets to it).
  duration command_wait = std::chrono::seconds(5);
  /// Shared stores: how often a parent waiting for its children looks at
  /// them, in case some run in another process (whose ends this process
  /// does not see). A store of one process needs no look: the dispatcher
  /// wakes the parent once enough children ended.
  duration children_poll = std::chrono::seconds(5);
  /// Most orphaned operations taken over per store call.
  size_t claim_batch = 1000;
  /// Makes the id this process joins a shared store's leases with, once
  /// per join (a fenced process joins again): each must be new. Null:
  /// host:pid:random. A test that replays a run from its seed makes them
  /// from the seed.
  std::function<std::string()> owner_ids;
  /// Most operations in progress at once per workflow name (all
  /// versions), overriding the workflows' own `limit`; the rest queue.
  std::map<std::string, size_t> limits;
  /// How often a process looks for operations that other processes
  /// admitted for it, or that a round left behind (stores shared by
  /// several processes; a single process runs rounds when it needs them).
  duration admission_poll = std::chrono::seconds(1);
  /// The keys that seal secret values before they reach the store (input
  /// paths a workflow declares `secret`, values a step keeps with
  /// `keep_secret`): the first key seals, every key opens. Null: secret
  /// values are stored in plaintext (masked in output all the same), and
  /// the engine says so once at launch.
  std::shared_ptr<const key_ring> secret_keys;
  /// Most checkpoints waiting to be written before new operations are
  /// refused (`errc::overloaded`): a slow store makes callers wait and
  /// retry instead of growing memory. Operations already running always
  /// write. Zero: no bound (a benchmark that creates a million at once).
  size_t max_backlog = 100000;
  /// Most creates being written at once. Later starts wait in order as
  /// what was asked (the request and where its answer goes, a few hundred
  /// bytes), not as operations with their events (several KB each): a
  /// host that starts a million operations at once holds a million
  /// requests, and `max_backlog` bounds them (`errc::overloaded` beyond).
  /// Zero: no window (every create is written at once).
  size_t create_window = 4096;
  /// Operations that ended longer ago than this are removed, with their
  /// events, in the background (engine/retention_store.hpp says what is
  /// never removed). Zero keeps everything (the default here; `stepwise
  /// serve` defaults to 30 days).
  duration retention = duration::zero();
  /// Most operations removed per batch (one short store transaction).
  size_t retention_batch = 100;
  /// How often a retention pass starts; zero: a tenth of `retention`,
  /// between 1 s and 5 min.
  duration retention_every = duration::zero();
  /// Where the engine's lines go (store faults, launch warnings); null:
  /// `stepwise: TEXT` on stderr.
  log_sink log;
  /// The clock; null means the real wall clock.
  std::shared_ptr<stepwise::clock> clock;
  /// Seed of the jitter random numbers (0: from the clock).
  uint64_t seed = 0;
  /// Get every event from the launch on, those of the operations recovery
  /// resumes included. `engine::subscribe` after the launch may miss what
  /// recovery did before its message arrived.
  std::vector<event_listener> listeners;
};

} // namespace stepwise
