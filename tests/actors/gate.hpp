#pragma once

#include <condition_variable>
#include <mutex>
#include <string>

#include "engine/step.hpp"

namespace stepwise::test {

/// A step that runs only once the test opens its gate: an operation that
/// runs for as long as the test wants. Open it before the engine stops,
/// which waits for running steps.
struct gate {
  std::mutex mtx;
  std::condition_variable cv;
  bool open = false;

  step_def step(std::string name) {
    return make_step(std::move(name), [this](step_context&) {
      std::unique_lock<std::mutex> g{mtx};
      cv.wait(g, [&] { return open; });
      return done();
    });
  }

  void release() {
    {
      std::lock_guard<std::mutex> g{mtx};
      open = true;
    }
    cv.notify_all();
  }
};

} // namespace stepwise::test
