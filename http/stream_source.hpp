#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "http/server_response.hpp"

namespace stepwise::http {

/// An answer that a route finishes later without holding a thread: an event
/// stream, or a long poll that found nothing yet. A route hands one to the
/// router (`request::answer_later`); the connection that received the
/// request then drives it on its own strand: it calls `next` and sends what
/// that returns, and when nothing is ready it waits, holding no thread,
/// until the source calls `wake` or `wake_at` passes.
///
/// A source is used by one connection at a time: `next` and `read` are never
/// called concurrently. It is destroyed when the answer ends or the client
/// leaves, which releases what it holds (an admission ticket, a subscription).
class stream_source {
public:
  using clock_type = std::chrono::steady_clock;

  /// What the connection does after `next`.
  struct step {
    /// Body bytes to send now (a stream's frames); empty: nothing yet.
    std::string data;
    /// The answer is complete once `data` is sent.
    bool end = false;
    /// Call `read` on a worker thread (it may block on the store), then
    /// `next` again.
    bool read = false;
    /// When there is nothing to send: call `next` again at this instant at
    /// the latest (earlier when the source calls `wake`).
    clock_type::time_point wake_at;
  };

  virtual ~stream_source() = default;

  /// Returns whether the head is sent at once and the body follows over
  /// time with no known length (an event stream). Otherwise the whole answer
  /// is sent when `next` ends it, from the `res` it filled (a long poll).
  virtual bool streaming() const = 0;

  /// Returns what to do now. Never blocks. `wake` may be kept and called
  /// from any thread, any number of times, to have `next` called again
  /// sooner (calls after the answer ended do nothing). A non-streaming
  /// source sets `res` in the step that ends it.
  virtual step next(clock_type::time_point now, server_response& res,
                    const std::function<void()>& wake) = 0;

  /// Does the blocking part that `next` asked for (a store read).
  virtual void read() = 0;
};

} // namespace stepwise::http
