#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "engine/engine.hpp"

// The part of `main` that the durability tests' child programs share, so
// that each child keeps only its workflows and options.
//
// A child runs as `test_child NAME STORE EFFECTS ACKED ARGS...`
// (tests/test_child.hpp), with argv[0] = NAME. Its steps append every
// execution to EFFECTS, a file outside the store, and it appends to ACKED
// the id of every start the engine acknowledged: the tests compare both
// with the store after killing children.
namespace stepwise::test {

/// A child's exit statuses other than 0.
constexpr int exit_usage = 2;
constexpr int exit_bad_workflow = 3;
constexpr int exit_launch_failed = 4;
constexpr int exit_still_active = 5;

/// The arguments every child takes first, then its own.
struct child_args {
  std::string store;
  std::string effects;
  std::string acked;
  std::vector<std::string> own;
};

/// Returns the arguments, or nothing when fewer than `min_own` of the
/// child's own follow STORE EFFECTS ACKED.
std::optional<child_args> parse_child_args(int argc, char** argv, size_t min_own);

/// What an effect line carries after "<op> <step> <attempt>".
enum class effect_stamp {
  none,
  /// " <pid> <wall-clock µs>": which process ran the attempt, and when.
  pid_and_time,
};

/// Returns a step that appends "<op> <step> <attempt>[stamp]" to EFFECTS at
/// every execution (the stamp of the child_setup it runs in) and keeps its
/// attempt in the operation's data. With `first_retry`, its first attempt
/// retries after that long. It then works for `busy` (a step that takes
/// time, as real ones do) before it answers.
step_def effect_step(const std::string& name, std::optional<duration> first_retry = std::nullopt,
                     duration busy = duration::zero());

/// What a child runs.
struct child_setup {
  engine_config engine;
  std::vector<workflow> workflows;
  /// Runs once the actor system exists, before the engine launches: adds
  /// what needs the system (a clock, a monitor and the workflows using it).
  std::function<void(caf::actor_system&, child_setup&)> with_system;
  /// What effect_step() lines carry after "<op> <step> <attempt>".
  effect_stamp stamp = effect_stamp::none;
  /// Operations of this workflow to start, with inputs `{"i": 0}` to
  /// `{"i": starts - 1}`.
  std::string start_workflow;
  int starts = 0;
  /// More operations to start, in this order, after those, `start_gap`
  /// apart (so that the starts of several processes interleave).
  std::vector<start_request> more_starts;
  duration start_gap = duration::zero();
  /// Runs once the operations are started, before the child waits to be
  /// idle: a test drives the child through it (tests/durability/
  /// command_loop.hpp). A status other than 0 ends the child with it at
  /// once (no shutdown, as a crash would).
  std::function<int(stepwise::engine&)> script;
  /// Exit once no operation of any process is left; else run until killed.
  bool exit_when_idle = true;
  /// Give up (exit_still_active) after this long, so that a test fails
  /// instead of hanging.
  std::optional<duration> idle_within;
};

/// Appends `line` to ACKED (one write: whole even if killed right after).
void acknowledge(const std::string& line);

/// Appends `line` to EFFECTS (one write), for steps of a child's own.
void record_effect(const std::string& line);

/// Opens EFFECTS and ACKED, launches the engine, starts the operations and
/// runs as `setup` says. Returns the exit status.
int run_child(const child_args& args, child_setup setup);

} // namespace stepwise::test
