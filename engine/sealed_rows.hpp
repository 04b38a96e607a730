#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/expected.hpp>

namespace stepwise {

/// The columns of one operation that may hold sealed secret values
/// (sealed_json.hpp), as stored: JSON text.
struct sealed_row {
  std::string id;
  int64_t revision = 0;
  std::string input;
  std::string data;
};

/// What `stepwise secrets rotate` needs of a store: the rows holding sealed
/// values, and a rewrite of those columns that never overrides a newer
/// write. The SQL stores implement it (`store::sealed()`); a server may run
/// meanwhile.
class sealed_rows {
public:
  virtual ~sealed_rows() = default;

  /// Returns up to `limit` operations whose id sorts after `after` and
  /// whose input or data holds a sealed value, by id.
  [[nodiscard]] virtual caf::expected<std::vector<sealed_row>> sealed_after(
    const std::string& after, size_t limit) = 0;

  /// Writes the input and data of each row whose stored revision is still
  /// `revision` (leaving the revision as it is: the engine's next
  /// checkpoint of that operation goes through), in one transaction.
  /// Returns how many rows were written; the others changed meanwhile.
  [[nodiscard]] virtual caf::expected<size_t> rewrite_sealed(
    const std::vector<sealed_row>& rows) = 0;
};

} // namespace stepwise
