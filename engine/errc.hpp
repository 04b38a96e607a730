#pragma once

#include <cstdint>
#include <string>

#include <caf/atom.hpp>
#include <caf/error.hpp>

namespace stepwise {

/// Error codes of the engine. The numbers are stable: they travel in
/// `caf::error` values and may be persisted. Never reuse a number.
enum class errc : uint8_t {
  /// The workflow (or the requested version) is not registered.
  unknown_workflow = 1,
  /// A request field is missing, of the wrong type or out of range.
  invalid_argument = 2,
  /// No operation has that id.
  not_found = 3,
  /// The operation's state does not allow the request (cancel, retry).
  invalid_state = 4,
  /// The idempotency key was used before with a different request.
  idempotency_conflict = 5,
  /// The store failed; the message says which call and why.
  store_failure = 6,
  /// The engine is shutting down and takes no new work.
  shutting_down = 7,
  /// The engine did not answer in time.
  timeout = 8,
  /// A workflow definition is invalid (registration error).
  invalid_definition = 9,
  /// A write lost an optimistic-concurrency race (stale revision).
  stale_revision = 10,
  /// A sink's destination did not acknowledge a delivery (outbox).
  delivery_failed = 11,
  /// A secret value cannot be opened: the key it was sealed with is not in
  /// the key ring, or the ring's key of that id is another one (the
  /// message names the key id).
  secret_key = 12,
  /// Too much waits to be written to the store: new operations are refused
  /// until the backlog shrinks (`engine_config::max_backlog`).
  overloaded = 13,
  /// A task's token names an attempt that is no longer current (it timed
  /// out, was retried, canceled or paused, or was answered before).
  stale_task = 14,
};

/// The error category atom of stepwise errors.
constexpr caf::atom_value error_category = caf::atom("stepwise");

/// Returns the name of `x`, e.g. `"not_found"`.
std::string to_string(errc x);

/// Returns an error with code `x` and a human-readable `context`.
caf::error make_error(errc x, std::string context);

/// Returns an error with code `x` and no context. With it, `errc` is an
/// error code enum to CAF (`caf::has_make_error`): `e == errc::not_found`
/// compares an error's code and category (not its context), and an
/// `errc` converts to a `caf::error`.
caf::error make_error(errc x);

/// Returns the stepwise code of `e`, or `errc{}` (0) when `e` is not a
/// stepwise error (none, or another category such as CAF's own `sec`).
errc code_of(const caf::error& e);

/// Returns the human-readable message of `e` (its context for stepwise
/// errors, CAF's rendering otherwise).
std::string message_of(const caf::error& e);

} // namespace stepwise
