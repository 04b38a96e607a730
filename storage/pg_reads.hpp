#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "engine/sink_store.hpp"
#include "engine/store.hpp"

namespace stepwise {

class pg_connection;

/// The read queries of the PostgreSQL store, each one statement on a
/// connection the caller holds (see `pg_read_pool`). Same contracts as the
/// `store` functions of the same names.
namespace pg_reads {

[[nodiscard]] caf::expected<std::optional<operation>> load(pg_connection& conn,
                                                           const std::string& id);

[[nodiscard]] caf::expected<std::optional<operation>> find_by_key(pg_connection& conn,
                                                                  const std::string& key);

[[nodiscard]] caf::expected<std::vector<operation>> load_active_page(
  pg_connection& conn, const std::optional<active_position>& after, size_t limit);

[[nodiscard]] caf::expected<operation_page> list(pg_connection& conn, const list_filter& filter);

/// Every schedule (`id` empty), or the one with `id`.
[[nodiscard]] caf::expected<std::vector<schedule>> schedules(pg_connection& conn,
                                                             const std::string& id);

[[nodiscard]] caf::expected<std::vector<event>> events_after(pg_connection& conn, int64_t after,
                                                             size_t limit);

/// `store::events_of`.
[[nodiscard]] caf::expected<std::vector<event>> events_of(pg_connection& conn,
                                                          const std::string& operation_id,
                                                          int64_t after, size_t limit);

/// `sink_store::routed_events_after`.
[[nodiscard]] caf::expected<std::vector<routed_event>> routed_events_after(pg_connection& conn,
                                                                           int64_t after,
                                                                           size_t limit);

[[nodiscard]] caf::expected<int64_t> last_seq(pg_connection& conn);

} // namespace pg_reads

} // namespace stepwise
