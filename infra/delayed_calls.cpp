#include "infra/delayed_calls.hpp"

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/send.hpp>

namespace stepwise::infra {

namespace {

/// Runs the calls. A class rather than a function: CAF 0.17.6 spawns a
/// function that takes no arguments through a null pointer (UBSan says so).
class runner : public call_runner_actor::base {
public:
  using call_runner_actor::base::base;

  behavior_type make_behavior() override {
    return {[](delayed_call& c) { c.fn(); }};
  }
};

} // namespace

delayed_calls::delayed_calls(caf::actor_system& sys, std::shared_ptr<stepwise::clock> clk)
  : clk_(std::move(clk)) {
  runner_ = sys.spawn<runner, caf::hidden>();
}

delayed_calls::~delayed_calls() {
  caf::anon_send_exit(runner_, caf::exit_reason::user_shutdown);
}

void delayed_calls::at(time_point due, std::function<void()> fn) {
  clk_->send_at(due, runner_, delayed_call{std::move(fn)});
}

} // namespace stepwise::infra
