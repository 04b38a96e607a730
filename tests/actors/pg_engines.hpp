#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

/// Starts `n` operations of `workflow` on `e`; returns their ids.
inline std::vector<std::string> start_many(engine& e, const std::string& workflow, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    auto started = e.start({workflow, std::nullopt, {}, {}, std::nullopt});
    if (!started)
      throw std::runtime_error("start_many: " + message_of(started.error()));
    ids.push_back(started->op.id);
  }
  return ids;
}

/// Returns every event in `st`, oldest first.
inline std::vector<event> all_events(store& st) {
  std::vector<event> out;
  for (;;) {
    auto page = st.events_after(out.empty() ? 0 : out.back().seq, 1000);
    if (!page)
      throw std::runtime_error("all_events: " + message_of(page.error()));
    if (page->empty())
      return out;
    out.insert(out.end(), page->begin(), page->end());
  }
}

} // namespace stepwise::test
