#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "engine/operation.hpp"
#include "engine/store.hpp"
#include "storage/column_reader.hpp"

/// The columns of the `operations` table that hold an `operation`, in the
/// order of `op_row`: every backend selects and inserts them in this order.
/// A macro so that constant SQL statements can contain it as a literal.
#define STEPWISE_OP_COLUMNS                                                                        \
  "id, workflow, workflow_version, state, input, data, steps, error, "                             \
  "created_at, updated_at, deadline, idempotency_key, request_hash, "                              \
  "revision, wake_at, signals, queue_key, admission, blocked_by, "                                 \
  "pause_requested, parent_id, schedule_id, labels"

namespace stepwise {

/// An operation as every SQL backend stores it: one member per column of
/// `STEPWISE_OP_COLUMNS`, in that order. The one place that says which
/// column holds which field and in which form; the backends only bind these
/// members to their parameters or read them from their results.
///
/// Text members are views: of the operation and the `op_row_buffers` it was
/// encoded from (writes), or of the database's result row (reads). They
/// stay valid as long as those do, so that the write path binds the
/// encoded JSON without copying it.
struct op_row {
  std::string_view id;
  std::string_view workflow;
  int32_t workflow_version = 0;
  /// `to_string(op_state)`.
  std::string_view state;
  /// JSON object (`{}` when the operation has no input).
  std::string_view input;
  /// JSON object.
  std::string_view data;
  /// JSON array of step records (`codec::encode_steps`).
  std::string_view steps;
  std::string_view error;
  /// Times in microseconds since the Unix epoch.
  int64_t created_at = 0;
  int64_t updated_at = 0;
  std::optional<int64_t> deadline;
  /// NULL when the operation has none: any number of operations may have
  /// no key, while a key is unique.
  std::optional<std::string_view> idempotency_key;
  std::string_view request_hash;
  int64_t revision = 0;
  std::optional<int64_t> wake_at;
  /// JSON array of signal records (`codec::encode_signals`).
  std::string_view signals;
  /// NULL when the operation has no serialization key.
  std::optional<std::string_view> queue_key;
  /// NULL (`admission::none`), `queued` or `admitted`.
  std::optional<std::string_view> admission;
  std::string_view blocked_by;
  int32_t pause_requested = 0;
  /// NULL when the operation has no parent, no schedule. Set at creation.
  std::optional<std::string_view> parent_id;
  std::optional<std::string_view> schedule_id;
  /// JSON object of the labels, NULL when it has none. Set at creation; a
  /// trigger copies them into `operation_labels`, the index lists read.
  std::optional<std::string_view> labels;
};

/// The JSON text of one row being written. Reused from row to row (and
/// commit to commit where the backend allows) to save an allocation per
/// field and checkpoint; a row's views into them stay valid until the next
/// `encode_op_row` with the same buffers.
struct op_row_buffers {
  std::string input;
  std::string data;
  std::string steps;
  std::string signals;
  std::string labels;
};

/// Returns the row of `op`. An update (`what`) leaves the columns fixed at
/// creation unset (`input`, `created_at`, `idempotency_key`,
/// `request_hash`, `queue_key`, `parent_id`, `schedule_id`, `labels`): no backend
/// writes them then, and encoding
/// the input again on every checkpoint would cost for nothing. Neither
/// writes `admission` and `blocked_by` on an update: admission rounds own
/// them once the operation exists.
[[nodiscard]] op_row encode_op_row(const operation& op, checkpoint::kind what, op_row_buffers& buf);

/// Encodes the JSON columns of `op` into `buf` (what `encode_op_row` does
/// first), for `op_row_of`.
void encode_op_json(const operation& op, checkpoint::kind what, op_row_buffers& buf);

/// Returns the row of `op` whose JSON columns `encode_op_json` put in `buf`.
[[nodiscard]] op_row op_row_of(const operation& op, checkpoint::kind what,
                               const op_row_buffers& buf);

/// A checkpoint's JSON columns, encoded by `store::prepare` on the
/// submitting thread; the SQL stores' commits bind them as they are.
struct encoded_checkpoint final : prepared_checkpoint {
  /// What the SQL stores' prepared checkpoints carry as their `maker`.
  static const char tag;

  encoded_checkpoint() : prepared_checkpoint(&tag) {
    // nop
  }

  op_row_buffers json;
};

/// `store::prepare` of the SQL stores.
[[nodiscard]] std::shared_ptr<const prepared_checkpoint> encode_checkpoint(const checkpoint& cp);

/// Returns the row of `cp`, from its prepared JSON if it has some, else
/// encoded into `buf`.
[[nodiscard]] op_row checkpoint_row(const checkpoint& cp, op_row_buffers& buf);

/// Returns whether `cp` is an update that changes the operation's input
/// (a retry's input patch: it carries `input_patched`). Its input is
/// written with it, in the same transaction; other updates leave the
/// input, which is otherwise fixed at creation, alone.
[[nodiscard]] bool patches_input(const checkpoint& cp);

/// Returns the row at `cols`, selected as `STEPWISE_OP_COLUMNS`.
[[nodiscard]] op_row read_op_row(const column_reader& cols);

/// Returns the operation stored as `row`; a malformed column (the store is
/// damaged) is an `errc::store_failure` naming the operation and column.
[[nodiscard]] caf::expected<operation> decode_op_row(const op_row& row);

/// Returns the operation at `cols`, selected as `STEPWISE_OP_COLUMNS`.
[[nodiscard]] inline caf::expected<operation> read_operation(const column_reader& cols) {
  return decode_op_row(read_op_row(cols));
}

} // namespace stepwise
