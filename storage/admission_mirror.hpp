#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/admission.hpp"
#include "engine/operation.hpp"

namespace stepwise {

/// The admission columns of a store that one process writes (SQLite), kept
/// in memory by its writer so that a round reads none of them: it plans
/// over the operations that wait (queued, or admitted and not started), in
/// creation order, and a summary of those that run (`admission_held`).
/// A round costs what waits, not what is in flight.
///
/// Filled by one full read (`load`), then told of every write the store
/// makes (`created`, `updated`, `apply`); a transaction that fails makes
/// it read again (`invalidate`). Not thread-safe: the store's write lock
/// guards it.
class admission_mirror {
public:
  /// A row as read by a full round, with its creation time (µs).
  struct loaded_row {
    admission_row row;
    int64_t created_at = 0;
  };

  bool loaded() const {
    return loaded_;
  }

  /// Replaces the contents with `rows` (every operation taking part in
  /// admission that has not ended).
  void load(std::vector<loaded_row> rows);

  /// Forgets everything: the next round reads the store again.
  void invalidate();

  /// `op` was inserted.
  void created(const operation& op);

  /// `op` replaced its previous revision (the store keeps the admission
  /// columns, and queues again an operation that leaves an end state).
  void updated(const operation& op);

  /// A round's updates were written.
  void apply(const std::vector<admission_update>& updates);

  /// The operations that wait, in creation order.
  std::vector<admission_row> waiting() const;

  bool nothing_waits() const {
    return waiting_.empty();
  }

  const admission_held& held() const {
    return held_;
  }

private:
  /// An operation taking part, with its row as a round reads it.
  using entry = loaded_row;

  using position = std::pair<int64_t, std::string>;

  /// Adds (`sign` 1) or takes out (-1) what `e` contributes to `waiting_`
  /// or `held_`.
  void count(const std::string& id, const entry& e, int sign);

  bool loaded_ = false;
  std::unordered_map<std::string, entry> ops_;
  std::set<position> waiting_;
  admission_held held_;
};

} // namespace stepwise
