#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "engine/errc.hpp"
#include "engine/time.hpp"

/// How the engine handle's functions reach the engine's actors from
/// threads outside CAF: through the bridge, an actor that sends each
/// request on the caller's behalf (actors/engine.cpp).
namespace stepwise::bridge_calls {

inline caf::error not_answered(duration timeout) {
  return make_error(errc::timeout, "the engine did not answer within "
                                     + std::to_string(timeout.count() / 1000) + " ms");
}

/// Holds the answer to one `ask` until the asking thread takes it.
template <class T>
struct reply_slot {
  std::mutex mtx;
  std::condition_variable cv;
  std::optional<caf::expected<T>> value;

  void set(caf::expected<T> x) {
    {
      std::lock_guard<std::mutex> guard{mtx};
      value = std::move(x);
    }
    cv.notify_one();
  }
};

/// Sends a request to `target` through the bridge; `done` gets the answer,
/// on the bridge's thread. With a `timeout` CAF answers with an error after
/// it (a CAF timer per request); without, the request waits for its answer.
template <class T, class Target, class... Ts>
void via_bridge(const bridge_actor& bridge, const Target& target, std::optional<duration> timeout,
                std::function<void(caf::expected<T>)> done, Ts&&... xs) {
  auto msg = std::make_tuple(std::forward<Ts>(xs)...);
  caf::duration wait = timeout ? caf::duration{*timeout} : caf::duration{caf::infinite};
  caf::anon_send(
    bridge,
    bridge_job{[done = std::move(done), msg, target, wait, timeout](bridge_actor::pointer self) {
      auto ask = [&](const auto&... args) { return self->request(target, wait, args...); };
      std::apply(ask, msg).then([done](T& x) { done(std::move(x)); },
                                [done, timeout](caf::error& e) {
                                  if (timeout && e == caf::sec::request_timeout)
                                    done(not_answered(*timeout));
                                  else
                                    done(std::move(e));
                                });
    }});
}

/// Sends a request to the dispatcher through the bridge and waits (at most
/// `timeout`) for the answer. Cheaper than a `scoped_actor` per call, which
/// spawns an actor and arms a CAF timer thread wake-up for every request:
/// the HTTP gateway calls this once per request.
template <class T, class Target, class... Ts>
caf::expected<T> ask_bridge(const std::atomic<bool>& down, const bridge_actor& bridge,
                            const Target& target, duration timeout, Ts&&... xs) {
  if (down)
    return make_error(errc::shutting_down, "the engine is shut down");
  auto slot = std::make_shared<reply_slot<T>>();
  via_bridge<T>(
    bridge, target, std::nullopt, [slot](caf::expected<T> x) { slot->set(std::move(x)); },
    std::forward<Ts>(xs)...);
  std::unique_lock<std::mutex> guard{slot->mtx};
  if (!slot->cv.wait_for(guard, timeout, [&] { return slot->value.has_value(); }))
    return not_answered(timeout);
  return std::move(*slot->value);
}

/// Sends a request to the dispatcher through the bridge and calls `done`
/// with the answer, or with an error after `timeout`, from the bridge's
/// thread: the asking thread goes on at once (the HTTP gateway's create,
/// which then holds no thread while the operation is written).
template <class T, class Target, class... Ts>
void tell_bridge(const std::atomic<bool>& down, const bridge_actor& bridge, const Target& target,
                 duration timeout, std::function<void(caf::expected<T>)> done, Ts&&... xs) {
  if (down) {
    done(make_error(errc::shutting_down, "the engine is shut down"));
    return;
  }
  via_bridge<T>(bridge, target, timeout, std::move(done), std::forward<Ts>(xs)...);
}

} // namespace stepwise::bridge_calls
