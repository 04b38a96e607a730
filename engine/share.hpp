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
/// - Below the share: claim up to the difference; always at least its part
///   of the orphans of ended leases (so that the operations of a process
///   that died or left are taken at once even when the counts the others
///   published are stale).
/// - Below it by more than the slack: hungry.
/// - Above the share by more than a slack (a tenth of the share, at least
///   two): shed down to the share, and claim nothing.
/// A released operation has no owner: only a process below its share
/// claims it, so the one that shed it does not take it back.
share_plan plan_share(const load_view& view, int64_t mine);

} // namespace stepwise
