#pragma once

#include <functional>
#include <mutex>

#include "http/stream_source.hpp"

namespace stepwise::http {

/// An answer that arrives from elsewhere: a route asks the engine without
/// waiting (`engine::start` with a callback), hands this to the router
/// (`request::answer_later`) and returns; the engine's callback `deliver`s
/// what writes the answer, from any thread, and the connection sends it.
/// No thread waits meanwhile.
class deferred_answer final : public stream_source {
public:
  /// Writes the answer into the response (on the connection's thread).
  using writer = std::function<void(server_response&)>;

  /// Hands over the answer; the first call wins. Thread-safe.
  void deliver(writer w);

  bool streaming() const override {
    return false;
  }

  step next(clock_type::time_point now, server_response& res,
            const std::function<void()>& wake) override;

  void read() override {
    // nop: nothing is read here
  }

private:
  std::mutex mtx_;
  writer answer_;
  std::function<void()> wake_;
};

} // namespace stepwise::http
