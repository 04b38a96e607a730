#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include <caf/expected.hpp>

#include "engine/key_ring.hpp"
#include "engine/sealed_rows.hpp"

namespace stepwise {

/// What `rotate_secrets` did.
struct rotation_report {
  /// Operations holding sealed values, looked at (each pass counts again).
  size_t checked = 0;
  /// Operations whose values were sealed again with the current key.
  size_t rewritten = 0;
  /// Operations that changed between reading and rewriting in the last
  /// pass: their values may still be under another key.
  size_t changed = 0;
  size_t passes = 0;
  /// Operations whose values cannot be opened, with the reason (naming
  /// the key id): they keep their old key.
  std::map<std::string, std::string> failures;
};

/// Settings of `rotate_secrets`.
struct rotation_options {
  /// Operations read and rewritten per transaction.
  size_t batch = 100;
  /// Passes at most: a pass after the first one only runs when operations
  /// changed under the one before (a server ran them).
  size_t max_passes = 5;
  /// Called after each batch.
  std::function<void(const rotation_report&)> progress;
};

/// Seals every stored secret value again with the current key of `keys`
/// (values under other keys, and plain ones stored without a key ring), in
/// batches, while servers may run: a row that changed meanwhile is left to
/// the next pass. Fails only when the store fails; values it cannot open
/// are listed in `failures`.
[[nodiscard]] caf::expected<rotation_report> rotate_secrets(sealed_rows& rows, const key_ring& keys,
                                                            const rotation_options& opts);

} // namespace stepwise
