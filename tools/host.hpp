#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "engine/clock.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "engine/schedule_requests.hpp"
#include "engine/store.hpp"
#include "engine/wait.hpp"

/// The server inside a host program: everything `stepwise serve` runs (its
/// flags, environment and config file; the HTTP API, console,
/// Infrastructure API, service broker, sinks; SIGHUP reloads, SIGTERM and
/// SIGINT stop) with the host's own workflows. `stepwise serve` itself is
/// `stepwise::serve(args)`.
namespace stepwise {

/// What the server has made by the time it asks for the host's workflows.
struct host_context {
  caf::actor_system& sys;
  /// The engine's clock (the real one unless a test swapped it).
  std::shared_ptr<clock> clk;
  /// The store the engine runs on (for steps that read operations).
  store_ptr store;
  /// The monitor of the infrastructure driver's tasks (null without one):
  /// a wait step's watcher.
  watcher_actor monitor;
};

/// The running server, handed to `serve_host::ready`.
struct served {
  engine eng;
  /// The engine's typed protocols (engine/requests.hpp,
  /// engine/schedule_requests.hpp), for the host's actors.
  dispatcher_actor dispatcher;
  schedules_actor schedules;
  /// Where the HTTP API listens (`http://127.0.0.1:8080`).
  std::string url;
};

/// What a host program adds to the server.
struct serve_host {
  /// Registers the host's workflows. Called once, after the store is open
  /// and before the engine starts (which resumes their operations).
  std::function<caf::expected<void>(registry&, const host_context&)> workflows;
  /// Also register stepwise's own workflows (`--workflows`: demo, bench;
  /// the infrastructure ones behind /api/infrastructure and /v2/). False:
  /// only the host's (the Infrastructure API and the broker are then not
  /// mounted).
  bool builtin = true;
  /// The host's actor system; null: `serve` makes one (tuned with
  /// `tune_actor_system`) and ends it on return. A host's system must
  /// outlive the call.
  caf::actor_system* system = nullptr;
  /// Called once the server listens, before `serve` waits for a signal.
  /// Runs on the calling thread: return soon (hand the engine to actors).
  std::function<void(const served&)> ready;
};

/// Runs the server with the command line `args` (what follows
/// `stepwise serve`: `--listen`, `--store`, ... `--help`) until SIGTERM or
/// SIGINT (a second one ends the process at once). Returns the exit code:
/// 0 after a graceful stop, 1 when start-up failed, 2 for a bad command
/// line or configuration (the error is printed).
int serve(const std::vector<std::string>& args, const serve_host& host = {});

/// The same with `main`'s arguments (`argv[0]` is skipped).
int serve(int argc, const char* const* argv, const serve_host& host = {});

} // namespace stepwise
