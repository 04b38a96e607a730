#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/step.hpp"

namespace stepwise::test {

/// Steps that block until the test lets them go, recording the order in
/// which operations started.
struct turnstile {
  std::mutex mtx;
  std::condition_variable cv;
  int passes = 0;
  std::vector<std::string> started;
  /// Tags whose next pass fails (permanently) instead of completing.
  std::set<std::string> fail_once;

  step_def step(std::string name) {
    return make_step(std::move(name), [this](step_context& ctx) {
      std::unique_lock<std::mutex> g{mtx};
      started.push_back(ctx.input().at("tag").as_string().c_str());
      cv.notify_all();
      cv.wait(g, [&] { return passes > 0; });
      --passes;
      std::string tag = ctx.input().at("tag").as_string().c_str();
      if (fail_once.erase(tag) > 0)
        return fail("failing " + tag + " once");
      return done();
    });
  }

  /// Lets `n` blocked steps finish.
  void let_through(int n) {
    std::lock_guard<std::mutex> g{mtx};
    passes += n;
    cv.notify_all();
  }

  /// Waits (at most 10 s of real time) until `n` steps have started.
  bool await_started(size_t n) {
    std::unique_lock<std::mutex> g{mtx};
    return cv.wait_for(g, std::chrono::seconds(10), [&] { return started.size() >= n; });
  }

  /// Lets every step through when it goes: declared after the harness, so
  /// that a failed check leaves no step blocked (the engine would never
  /// stop).
  struct opener {
    turnstile& gate;
    ~opener() {
      gate.let_through(1 << 20);
    }
  };

  std::vector<std::string> order() {
    std::lock_guard<std::mutex> g{mtx};
    return started;
  }
};

} // namespace stepwise::test
