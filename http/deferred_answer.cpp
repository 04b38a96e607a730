#include "http/deferred_answer.hpp"

#include <chrono>
#include <utility>

namespace stepwise::http {

namespace {

// The engine always answers (an error after its request timeout); this only
// keeps the connection's timer finite.
constexpr auto never = std::chrono::hours(24);

} // namespace

void deferred_answer::deliver(writer w) {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (answer_)
      return;
    answer_ = std::move(w);
    wake = wake_;
  }
  // Outside the lock: it posts to the connection, which calls `next`.
  if (wake)
    wake();
}

stream_source::step deferred_answer::next(clock_type::time_point now, server_response& res,
                                          const std::function<void()>& wake) {
  step s;
  std::lock_guard<std::mutex> guard{mtx_};
  if (answer_) {
    answer_(res);
    s.end = true;
    return s;
  }
  wake_ = wake;
  s.wake_at = now + never;
  return s;
}

} // namespace stepwise::http
