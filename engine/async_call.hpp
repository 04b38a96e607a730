#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>

#include "engine/outcome.hpp"
#include "engine/step_context.hpp"
#include "engine/step_result.hpp"

namespace stepwise {

/// One attempt of an asynchronous step (`make_async_step`): the step starts
/// its work, keeps the call (copies share it) and returns at once; whoever
/// finishes the work later, on any thread, ends the attempt with
/// `complete`. Waiting holds no thread.
///
/// The step's own code is the only one to touch `context()` until it calls
/// `complete`. A call completed after the engine abandoned the attempt (it
/// timed out, the operation was canceled or paused, the process restarted)
/// is ignored: `context().stop()` tells when that happened.
class async_call {
public:
  /// Where the engine wants the attempt's result.
  using sink = std::function<void(step_result)>;

  async_call(step_context ctx, sink deliver);

  /// Returns the attempt's context (input, data, transient values, emit).
  step_context& context() const {
    return st_->ctx;
  }

  /// Ends the attempt with `result` (and the context's data, transient
  /// values and emitted events). Thread-safe; only the first call counts:
  /// returns whether this one did.
  bool complete(outcome result) const;

  /// Returns whether the attempt was completed.
  bool completed() const {
    return st_->done.load(std::memory_order_acquire);
  }

private:
  struct state {
    state(step_context c, sink d)
      : ctx(std::move(c)), deliver(std::move(d)), started(ctx.monotonic()) {
      // nop
    }
    step_context ctx;
    sink deliver;
    std::atomic<bool> done{false};
    duration started;
  };

  std::shared_ptr<state> st_;
};

} // namespace stepwise
