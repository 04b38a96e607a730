#pragma once

#include <cassert>
#include <functional>
#include <variant>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "engine/event.hpp"
#include "engine/progress.hpp"
#include "engine/requests.hpp"

namespace stepwise {

/// A request answered once the commit in flight is durable: a command
/// with the operation, a signal with a `signal_result`.
using commit_waiter =
  std::variant<caf::typed_response_promise<operation>, caf::typed_response_promise<signal_result>>;

/// The operation as stored and the one commit in flight: an actor writes
/// one checkpoint at a time, and what arrives meanwhile waits for it.
struct commit_pipeline {
  /// The last durable snapshot: what queries see.
  op_snapshot durable;
  /// The snapshot being written; null when none is.
  op_snapshot in_flight;
  /// Carried out once `in_flight` is durable.
  next_action then;
  /// Answered once `in_flight` is durable.
  std::vector<commit_waiter> waiters;
  /// Events of a start not written yet (an attempt begun by a timer runs
  /// at once; its start is written with its result).
  std::vector<event> carry;
  /// The stored command (`command_store`) the next checkpoint carries out
  /// (0: none): deleted in its transaction.
  int64_t consumed = 0;
  /// Messages that arrived while a commit was in flight, run after it.
  std::vector<std::function<void()>> deferred;

  /// A commit being prepared: the children its step asked for are being
  /// started, and the step's result is written once they are
  /// (operation_children.cpp). What arrives meanwhile waits, as for a
  /// commit in flight.
  bool preparing = false;

  bool busy() const {
    return in_flight != nullptr || preparing;
  }

  /// Begins writing `snapshot`; `act` runs once it is durable.
  void begin(op_snapshot snapshot, next_action act) {
    assert(!busy());
    in_flight = std::move(snapshot);
    then = act;
  }

  /// The write is durable: `in_flight` is what queries see now. Returns
  /// the action to carry out.
  next_action end() {
    durable = std::move(in_flight);
    in_flight = nullptr;
    auto act = then;
    then = {};
    return act;
  }
};

} // namespace stepwise
