#pragma once

#include <functional>
#include <memory>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/typed_actor.hpp>

#include "engine/clock.hpp"

namespace stepwise::infra {

/// A function to run, as a message.
struct delayed_call {
  std::function<void()> fn;
};

/// The actor that runs them: it takes nothing else.
using call_runner_actor = caf::typed_actor<caf::reacts_to<delayed_call>>;

} // namespace stepwise::infra

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::infra::delayed_call)

namespace stepwise::infra {

/// Runs functions at given times of an engine clock (virtual in tests), on
/// a CAF scheduler thread, through one hidden actor: what a simulation
/// delays (the answer of a call that takes 200 ms) holds no thread while it
/// waits. The functions must be cheap and must not block.
class delayed_calls {
public:
  delayed_calls(caf::actor_system& sys, std::shared_ptr<stepwise::clock> clk);

  ~delayed_calls();

  delayed_calls(const delayed_calls&) = delete;
  delayed_calls& operator=(const delayed_calls&) = delete;

  /// Runs `fn` at `due` (soon, when `due` has passed).
  void at(time_point due, std::function<void()> fn);

  /// Returns the clock the times refer to.
  const stepwise::clock& clock() const {
    return *clk_;
  }

private:
  std::shared_ptr<stepwise::clock> clk_;
  call_runner_actor runner_;
};

} // namespace stepwise::infra
