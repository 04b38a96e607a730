#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/engine.hpp"
#include "outbox/outbox.hpp"
#include "tests/outbox/support.hpp"
#include "tests/storage/store_backends.hpp"

namespace stepwise::test {

/// Warnings the outbox logged, kept for checks.
class warning_log {
public:
  void add(const std::string& msg);
  std::vector<std::string> all() const;

private:
  mutable std::mutex mtx_;
  std::vector<std::string> items_;
};

/// An engine with `outbox_workflows()` on a fresh SQLite file, and an
/// outbox with `sinks` in front of it, in this process.
struct outbox_fixture {
  temp_dir dir;
  std::unique_ptr<caf::actor_system_config> sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  store_ptr st;
  engine eng;
  std::shared_ptr<warning_log> warnings = std::make_shared<warning_log>();
  std::unique_ptr<outbox::outbox> ob;

  explicit outbox_fixture(std::vector<outbox::sink_config> sinks,
                          outbox::sink_timing timing = fast_timing());
  ~outbox_fixture();

  /// Starts `n` operations of `workflow` (input `{"request_id": "r-<i>"}`).
  std::vector<std::string> start_ops(const std::string& workflow, size_t n);

  /// Waits (bounded) until every operation in `ids` is terminal.
  void finish(const std::vector<std::string>& ids);

  /// Returns every event of the log.
  std::vector<event> committed() const;

  /// Returns the status of sink `name`.
  outbox::sink_status status(const std::string& name) const;

  /// Waits (bounded) until sink `name`'s cursor reaches the log's end.
  bool caught_up(const std::string& name, std::chrono::seconds limit) const;

  /// Runs `n` operations of `three` and `n / 6` of `task` to their end,
  /// waits until `sink` delivered them all; returns the log.
  std::vector<event> run_and_deliver(const std::string& sink, size_t n);
};

/// Returns a sink parsed from `spec`; fails the test when it does not parse.
outbox::sink_config sink(const std::string& spec);

} // namespace stepwise::test
