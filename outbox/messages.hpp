#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/typed_actor.hpp>

#include "engine/sink_store.hpp"
#include "engine/time.hpp"

/// The messages of the outbox's actors. All are local-only, so they are
/// whitelisted rather than serializable.
namespace stepwise::outbox {

/// (ob_wake_atom, seq): events up to `seq` are committed.
using ob_wake_atom = caf::atom_constant<caf::atom("ob_wake")>;
/// (ob_tick_atom, generation): the sink's periodic timer.
using ob_tick_atom = caf::atom_constant<caf::atom("ob_tick")>;
/// (ob_poll_atom, epoch): a busy sink's short poll timer.
using ob_poll_atom = caf::atom_constant<caf::atom("ob_poll")>;
/// (ob_retry_atom, generation): a backoff after a failure ended.
using ob_retry_atom = caf::atom_constant<caf::atom("ob_retry")>;
/// (ob_stop_atom) -> bool: write the cursor, release the lease, quit.
using ob_stop_atom = caf::atom_constant<caf::atom("ob_stop")>;
/// (ob_done_atom): a sink's last cursor write is done; it may quit.
using ob_done_atom = caf::atom_constant<caf::atom("ob_done")>;

/// The answer of `sink_store::acquire_sink`.
struct acquired {
  uint64_t epoch = 0;
  caf::error err;
  std::optional<int64_t> cursor;
  /// When the call started: the lease runs from no earlier.
  time_point asked_at;
};

/// Events read from the store.
struct read_done {
  uint64_t epoch = 0;
  caf::error err;
  std::vector<routed_event> events;
};

/// The outcome of one batch.
struct sent {
  uint64_t epoch = 0;
  uint64_t batch = 0;
  caf::error err;
};

/// The answer of `sink_store::update_sink`.
struct saved {
  uint64_t epoch = 0;
  caf::error err;
  int64_t cursor = 0;
  std::optional<std::string> error;
  time_point asked_at;
};

/// A sink's actor as the outbox talks to it: woken by commits, and stopped.
using sink_actor = caf::typed_actor<caf::reacts_to<ob_wake_atom, int64_t>,
                                    caf::replies_to<ob_stop_atom>::with<bool>>;

/// A sink's actor as it talks to itself: its timers, and the answers of its
/// jobs on the pool and of its destination.
using sink_runner_actor = sink_actor::extend<
  caf::reacts_to<ob_tick_atom, uint64_t>, caf::reacts_to<ob_retry_atom, uint64_t>,
  caf::reacts_to<ob_poll_atom, uint64_t>, caf::reacts_to<acquired>, caf::reacts_to<read_done>,
  caf::reacts_to<sent>, caf::reacts_to<saved>, caf::reacts_to<ob_done_atom>>;

} // namespace stepwise::outbox

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::outbox::acquired)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::outbox::read_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::outbox::sent)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::outbox::saved)
