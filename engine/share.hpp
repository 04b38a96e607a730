#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/lease_store.hpp"

namespace stepwise {

/// What one lease tick does about the spread of work: how many orphans to
/// claim and how many of its own sleeping operations to give up.
struct share_plan {
  size_t claim = 0;
  size_t shed = 0;
  /// Below the share by more than the slack: if claiming finds too few
  /// orphans, the others should give some up (`lease_store::ask_for_work`).
  bool hungry = false;
};

/// Decides a process's part of the work from `view` and `mine` (how many
/// operations it drives now). Every live process should drive about the
/// same number: the share is the whole count (every live process's, and
/// the orphans) divided by the live processes, rounded up.
/// - Alone: claim every orphan, shed nothing.
/// - Above the share by more than a slack (a tenth of the share, at least
///   16): shed down to the share, and claim nothing.
/// - Otherwise claim up to the share, and always at least its part of the
///   orphans (those of ended leases, and, with `take_unowned`, those given
///   up): an orphan is unavailable until claimed, so every process that
///   hears of one takes its part at once, even when the counts published
///   are stale. A process that gave operations up lately passes
///   `take_unowned` false, so that it does not take them back.
/// - Below the share by more than the slack: hungry.
/// The slack keeps small differences (a burst of creates landing unevenly)
/// from moving operations, each of which is unavailable while it moves.
share_plan plan_share(const load_view& view, int64_t mine, bool take_unowned = true);

} // namespace stepwise
