#pragma once

#include <caf/fwd.hpp>

#include "engine/clock.hpp"

namespace stepwise {

/// The wall clock. Timers go to CAF's clock thread: a pending timer holds
/// no thread and costs a few hundred bytes.
class real_clock : public clock {
public:
  explicit real_clock(caf::actor_system& sys) : sys_(sys) {
    // nop
  }

  time_point now() const override;

  void schedule(time_point due, const caf::actor& target,
                caf::message msg) override;

private:
  caf::actor_system& sys_;
};

} // namespace stepwise
