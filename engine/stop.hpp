#pragma once

#include <functional>
#include <memory>
#include <string>

namespace stepwise {

namespace detail {
struct stop_state;
} // namespace detail

/// The receiving end of a stop request: a step attempt reads it to learn
/// that the engine abandoned the attempt (it timed out, or the operation
/// was canceled, paused or ran past its deadline). The attempt's result no
/// longer counts then; a step that checks the token can end early and free
/// what it holds. A default-constructed token never stops. Copies share the
/// request. Thread-safe.
class stop_token {
public:
  stop_token() = default;

  /// Returns whether the stop was requested.
  bool stop_requested() const;

  /// Returns why the stop was requested (empty before).
  std::string reason() const;

  /// Runs `fn` once the stop is requested: at once, on this thread, when it
  /// already was; otherwise on the thread that requests it (an engine
  /// actor's), so `fn` must be cheap and must not block: send a message,
  /// cancel a call.
  void on_stop(std::function<void()> fn) const;

private:
  friend class stop_source;
  explicit stop_token(std::shared_ptr<detail::stop_state> st) : st_(std::move(st)) {
    // nop
  }

  std::shared_ptr<detail::stop_state> st_;
};

/// The sending end, kept by the engine for the attempt in flight.
class stop_source {
public:
  stop_source();

  /// Returns a token that sees this source's request.
  stop_token token() const;

  /// Requests the stop (only the first call counts) and runs the callbacks
  /// registered so far.
  void request_stop(std::string reason);

private:
  std::shared_ptr<detail::stop_state> st_;
};

} // namespace stepwise
