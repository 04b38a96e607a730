#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include <caf/error.hpp>

#include "engine/log.hpp"
#include "engine/time.hpp"

namespace stepwise {

/// Whether the store answers, as the writer's thread last saw it, and the
/// log lines of a fault: one when it begins, a reminder every
/// `remind_every` while it lasts, one when it ends saying how long it
/// lasted. Read from any thread (readiness, refusing new work). Its times
/// are readings of the engine clock's `monotonic()`.
class store_health {
public:
  explicit store_health(log_sink log, std::chrono::seconds remind_every = std::chrono::seconds(10));

  /// A store call failed: `what` names it ("commit of 12 checkpoints"),
  /// `retry` says what happens next ("retrying in 40 ms").
  void failed(const std::string& what, const caf::error& err, const std::string& retry,
              duration now);

  /// A store call succeeded.
  void answered(duration now);

  /// Returns why the store failed, or empty while it answers.
  std::string fault() const;

private:
  log_sink log_;
  std::chrono::seconds remind_every_;
  mutable std::mutex mtx_;
  std::string fault_;
  duration since_;
  duration reminded_;
  size_t failures_ = 0;
};

} // namespace stepwise
