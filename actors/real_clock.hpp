#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include <caf/fwd.hpp>

#include "engine/clock.hpp"

namespace stepwise {

/// The wall clock. Timers go to CAF's clock thread: a pending timer holds
/// no thread and costs a few hundred bytes. Calls (`call_at`) run on one
/// thread of its own, started by the first (not through an actor, as
/// `infra::delayed_calls` does: that would queue them behind the actors
/// the CAF scheduler holds, which is what a due step must skip).
class real_clock : public clock {
public:
  explicit real_clock(caf::actor_system& sys) : sys_(sys) {
    // nop
  }

  ~real_clock() override;

  real_clock(const real_clock&) = delete;
  real_clock& operator=(const real_clock&) = delete;

  time_point now() const override;

  duration monotonic() const override;

  // Untyped: one clock serves every actor (see clock::send_at).
  void schedule(time_point due, const caf::actor& target, caf::message msg) override;

  /// Calls pending when the clock is destroyed are dropped.
  void call_at(time_point due, std::function<void()> fn) override;

  void drop_calls() override;

private:
  void run_calls();

  caf::actor_system& sys_;
  std::mutex mtx_;
  std::condition_variable cv_;
  std::multimap<time_point, std::function<void()>> calls_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace stepwise
