#include "infra/delayed_calls.hpp"

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

namespace stepwise::infra {

namespace {

/// A function to run, as a message.
struct call {
  std::function<void()> fn;
};

} // namespace

} // namespace stepwise::infra

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::infra::call)

namespace stepwise::infra {

namespace {

/// Runs the calls. A class rather than a function: CAF 0.17.6 spawns a
/// function that takes no arguments through a null pointer (UBSan says so).
class runner : public caf::event_based_actor {
public:
  using caf::event_based_actor::event_based_actor;

  caf::behavior make_behavior() override {
    return {[](call& c) { c.fn(); }};
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
  clk_->send_at(due, runner_, call{std::move(fn)});
}

} // namespace stepwise::infra
