#pragma once

#include <memory>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/engine.hpp"
#include "tests/storage/pg_test_schema.hpp"

namespace stepwise::test {

/// Where a test of several engines on one PostgreSQL store starts: a fresh
/// schema (each `schema().open()` is another "process") and an actor
/// system tuned for the engine. False (after a warning) without a test
/// database: the test then passes vacuously, as `tests/run-all` always
/// sets one. Declared before the engines, it outlives them.
class pg_engines {
public:
  pg_engines() : schema_(pg_schema_or_skip()) {
    tune_actor_system(cfg_);
    sys_ = std::make_unique<caf::actor_system>(cfg_);
  }

  explicit operator bool() const {
    return schema_ != nullptr;
  }

  pg_test_schema& schema() {
    return *schema_;
  }

  caf::actor_system& system() {
    return *sys_;
  }

private:
  std::unique_ptr<pg_test_schema> schema_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
};

/// One workflow, "w": waits for the signal "go", then a step "after" ends
/// it (what tests of control requests between processes drive).
inline registry go_then_done() {
  registry reg;
  auto added = reg.add(workflow("w", 1)
                         .step(1, await_signal("wait", "go"))
                         .step(2, make_step("after", [](step_context&) { return done(); })));
  if (!added)
    throw std::logic_error("go_then_done: " + message_of(added.error()));
  return reg;
}

} // namespace stepwise::test
