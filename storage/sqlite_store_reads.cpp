// The read functions of sqlite_store: each runs on a pooled read-only
// connection, never on the write connection.

#include <algorithm>
#include <exception>
#include <limits>

#include "engine/errc.hpp"
#include "storage/codec.hpp"
#include "storage/sink_rows.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_rows.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

namespace {

// Turns an exception (allocation failure, a bug) into the error value the
// store interface promises.
template <class F>
auto guarded(std::string_view what, F&& fun) -> decltype(fun()) {
  try {
    return fun();
  } catch (const std::exception& ex) {
    return make_error(errc::store_failure, std::string{what} + " failed: " + ex.what());
  }
}

// Runs `stmt` (bound already) and reads each row with `read` into `out`.
template <class T, class Read>
caf::error collect(sqlite_connection& conn, sqlite_statement& stmt, std::string_view what,
                   Read read, std::vector<T>& out) {
  statement_reset guard{stmt};
  for (;;) {
    auto rc = stmt.step();
    if (rc == SQLITE_DONE)
      return caf::error{};
    if (rc != SQLITE_ROW)
      return conn.failure(what, rc);
    auto item = read(stmt);
    if (!item)
      return std::move(item.error());
    out.emplace_back(std::move(*item));
  }
}

// SQLite counts in int64; a larger limit means "all" anyway.
int64_t clamp_limit(size_t limit) {
  constexpr size_t most = std::numeric_limits<int32_t>::max();
  return static_cast<int64_t>(std::min(limit, most));
}

// Reads up to `limit` rows of `sql` (events after `?1`, at most `?2`),
// oldest first, each with `read`.
template <class T, class Read>
caf::expected<std::vector<T>> read_log(sqlite_read_pool& readers, const char* sql, int64_t after,
                                       size_t limit, std::string_view what, Read read) {
  std::vector<T> out;
  if (limit == 0)
    return out;
  auto conn = readers.acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare(sql);
  if (!stmt)
    return std::move(stmt.error());
  (*stmt)->bind(1, after);
  (*stmt)->bind(2, clamp_limit(limit));
  if (auto err = collect(**conn, **stmt, what, read, out))
    return err;
  return out;
}

// The list walks the first label's index and checks the others per row:
// the label with the fewest operations goes first (counted up to a bound,
// so that the count itself stays cheap), or two common labels that rarely
// meet would walk all of one's rows.
caf::expected<list_filter> rarest_label_first(sqlite_connection& conn, list_filter f) {
  if (f.labels.size() < 2 || !f.idempotency_key.empty())
    return f;
  auto stmt = conn.prepare("SELECT count(*) FROM (SELECT 1 FROM operation_labels "
                           "WHERE label_key = ?1 AND label_value = ?2 LIMIT 10000)");
  if (!stmt)
    return std::move(stmt.error());
  std::vector<std::pair<int64_t, size_t>> counts;
  for (size_t i = 0; i < f.labels.size(); ++i) {
    statement_reset guard{**stmt};
    (*stmt)->bind(1, f.labels[i].first);
    (*stmt)->bind(2, f.labels[i].second);
    auto rc = (*stmt)->step();
    if (rc != SQLITE_ROW)
      return conn.failure("counting a label's operations", rc);
    counts.emplace_back((*stmt)->int64(0), i);
  }
  std::stable_sort(counts.begin(), counts.end());
  auto labels = f.labels;
  for (size_t i = 0; i < counts.size(); ++i)
    f.labels[i] = labels[counts[i].second];
  return f;
}

} // namespace

caf::expected<std::optional<operation>> sqlite_store::load_one(const std::string& where,
                                                               const std::string& arg) {
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare("SELECT " STEPWISE_OP_COLUMNS " FROM operations WHERE " + where);
  if (!stmt)
    return std::move(stmt.error());
  (*stmt)->bind(1, arg);
  std::vector<operation> found;
  if (auto err = collect(**conn, **stmt, "loading an operation", read_operation, found))
    return err;
  if (found.empty())
    return std::optional<operation>{};
  return std::optional<operation>{std::move(found.front())};
}

caf::expected<std::optional<operation>> sqlite_store::load(const std::string& id) {
  return guarded("load", [&] { return load_one("id = ?1", id); });
}

caf::expected<std::optional<operation>> sqlite_store::find_by_key(const std::string& key) {
  // No operation has an empty key: absent keys are stored as NULL.
  if (key.empty())
    return std::optional<operation>{};
  return guarded("find_by_key", [&] { return load_one("idempotency_key = ?1", key); });
}

caf::expected<std::vector<operation>> sqlite_store::load_active_page(
  const std::optional<active_position>& after, size_t limit) {
  return guarded("load_active", [&]() -> caf::expected<std::vector<operation>> {
    auto conn = readers_->acquire();
    if (!conn)
      return std::move(conn.error());
    auto stmt = (*conn)->prepare(sqlite_rows::select_active_sql);
    if (!stmt)
      return std::move(stmt.error());
    (*stmt)->bind(1, after ? to_micros(after->created_at) : INT64_MIN);
    (*stmt)->bind(2, after ? after->id : std::string{});
    (*stmt)->bind(3, limit > INT64_MAX ? int64_t{-1} : static_cast<int64_t>(limit));
    std::vector<operation> out;
    if (auto err = collect(**conn, **stmt, "loading active operations", read_operation, out))
      return err;
    return out;
  });
}

caf::expected<operation_page> sqlite_store::list(const list_filter& requested) {
  return guarded("list", [&]() -> caf::expected<operation_page> {
    if (requested.limit == 0)
      return make_error(errc::invalid_argument, "list limit must be positive");
    std::optional<codec::list_position> after;
    if (!requested.cursor.empty()) {
      auto pos = codec::decode_cursor(requested.cursor);
      if (!pos)
        return std::move(pos.error());
      after = std::move(*pos);
    }
    auto conn = readers_->acquire();
    if (!conn)
      return std::move(conn.error());
    auto ordered = rarest_label_first(**conn, requested);
    if (!ordered)
      return std::move(ordered.error());
    const list_filter& filter = *ordered;
    auto stmt = (*conn)->prepare(sqlite_rows::select_list_sql(filter, after.has_value()));
    if (!stmt)
      return std::move(stmt.error());
    auto& s = **stmt;
    if (filter.state)
      s.bind(1, to_string(*filter.state));
    if (!filter.workflow.empty())
      s.bind(2, filter.workflow);
    if (!filter.parent.empty())
      s.bind(6, filter.parent);
    if (!filter.schedule.empty())
      s.bind(7, filter.schedule);
    if (!filter.idempotency_key.empty())
      s.bind(8, filter.idempotency_key);
    if (filter.created_after)
      s.bind(9, to_micros(*filter.created_after));
    if (filter.created_before)
      s.bind(12, to_micros(*filter.created_before));
    for (size_t i = 0; i < filter.labels.size(); ++i) {
      s.bind(static_cast<int>(20 + 2 * i), filter.labels[i].first);
      s.bind(static_cast<int>(21 + 2 * i), filter.labels[i].second);
    }
    if (after) {
      s.bind(3, to_micros(after->created_at));
      s.bind(4, after->id);
    }
    // One row more than asked tells whether another page follows.
    s.bind(5, clamp_limit(filter.limit) + 1);
    operation_page page;
    if (auto err = collect(**conn, s, "listing operations", read_operation, page.items))
      return err;
    if (page.items.size() > filter.limit) {
      page.items.pop_back();
      auto& last = page.items.back();
      page.next_cursor = codec::encode_cursor({last.created_at, last.id});
    }
    return page;
  });
}

caf::expected<std::vector<event>> sqlite_store::events_after(int64_t after, size_t limit) {
  return guarded("events_after", [&] {
    return read_log<event>(*readers_,
                           "SELECT " STEPWISE_EVENT_COLUMNS " FROM events "
                           "WHERE seq > ?1 ORDER BY seq LIMIT ?2",
                           after, limit, "reading events", read_event);
  });
}

caf::expected<std::vector<event>> sqlite_store::events_of(const std::string& operation_id,
                                                          int64_t after, size_t limit) {
  return guarded("events_of", [&]() -> caf::expected<std::vector<event>> {
    std::vector<event> out;
    if (limit == 0)
      return out;
    auto conn = readers_->acquire();
    if (!conn)
      return std::move(conn.error());
    // events_by_operation (migration 5) holds (operation_id, seq).
    auto stmt = (*conn)->prepare("SELECT " STEPWISE_EVENT_COLUMNS " FROM events "
                                 "WHERE operation_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3");
    if (!stmt)
      return std::move(stmt.error());
    (*stmt)->bind(1, operation_id);
    (*stmt)->bind(2, after);
    (*stmt)->bind(3, clamp_limit(limit));
    if (auto err = collect(**conn, **stmt, "reading an operation's events", read_event, out))
      return err;
    return out;
  });
}

caf::expected<std::vector<routed_event>> sqlite_store::routed_events_after(int64_t after,
                                                                           size_t limit) {
  return guarded("routed_events_after", [&] {
    return read_log<routed_event>(*readers_,
                                  "SELECT " STEPWISE_ROUTED_EVENT_COLUMNS
                                  " FROM events WHERE seq > ?1 ORDER BY seq "
                                  "LIMIT ?2",
                                  after, limit, "reading events for sinks", read_routed_event);
  });
}

caf::expected<int64_t> sqlite_store::last_seq() {
  return guarded("last_seq", [&]() -> caf::expected<int64_t> {
    auto conn = readers_->acquire();
    if (!conn)
      return std::move(conn.error());
    // AUTOINCREMENT keeps the highest seq ever assigned here, which stays
    // right even if old events are deleted one day.
    auto stmt = (*conn)->prepare("SELECT COALESCE((SELECT seq FROM "
                                 "sqlite_sequence WHERE name = 'events'), 0)");
    if (!stmt)
      return std::move(stmt.error());
    statement_reset guard{**stmt};
    auto rc = (*stmt)->step();
    if (rc != SQLITE_ROW)
      return (*conn)->failure("reading the last seq", rc);
    return (*stmt)->int64(0);
  });
}

} // namespace stepwise
