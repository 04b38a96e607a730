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

delayed_calls::delayed_calls(caf::actor_system& sys, std::shared_ptr<stepwise::clock> clk)
  : clk_(std::move(clk)) {
  runner_ = sys.spawn<caf::hidden>([](caf::event_based_actor*) -> caf::behavior {
    return {[](call& c) { c.fn(); }};
  });
}

delayed_calls::~delayed_calls() {
  caf::anon_send_exit(runner_, caf::exit_reason::user_shutdown);
}

void delayed_calls::at(time_point due, std::function<void()> fn) {
  clk_->schedule(due, runner_, caf::make_message(call{std::move(fn)}));
}

} // namespace stepwise::infra
