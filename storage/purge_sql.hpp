#pragma once

#include <string>

namespace stepwise {

/// The placeholders and JSON access of one SQL dialect, for `purge_sql`.
struct purge_dialect {
  /// The parameters: `ended_before` (µs), workflow (empty: any), limit,
  /// and the place to resume after (`updated_at` µs, id; the lowest
  /// integer and '' from the start).
  const char* ended_before;
  const char* workflow;
  const char* limit;
  const char* after_at;
  const char* after_id;
  /// Follows `FROM operations o`: what makes the planner walk
  /// `operations_ended` in order (SQLite's statistics-free planner would
  /// sort every ended operation by state instead).
  const char* ended_index;
  /// The outer operation's id as compared with `provision_of`: SQLite
  /// probes the expression index only for an operand without affinity.
  const char* outer_id;
  /// Returns the expression reading `input.provision_operation_id` of
  /// the operation `alias` (as the `operations_deprovisioning` index has it).
  std::string (*provision_of)(const std::string& alias);
  /// The column that holds an ended operation's end (its last write):
  /// `updated_at` in SQLite; PostgreSQL keeps it apart (`ended_at`), so
  /// that the writes of a running operation leave `operations_ended`
  /// alone and may stay on their page (HOT).
  const char* ended_at = "updated_at";
};

/// Returns the query of the removable operations (`id`, `revision`,
/// their `ended_at`), oldest
/// first: every rule of engine/retention_store.hpp in one statement, so
/// that the SQL stores agree on them. Each subquery probes an index
/// (`operations_parent`, `operations_deprovisioning`, the primary key,
/// `events_by_operation`).
std::string purge_candidates_sql(const purge_dialect& d);

} // namespace stepwise
