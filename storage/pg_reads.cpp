#include "storage/pg_reads.hpp"

#include "engine/errc.hpp"
#include "storage/codec.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_rows.hpp"
#include "storage/pg_statements.hpp"
#include "storage/schedule_row.hpp"
#include "storage/sink_rows.hpp"

namespace stepwise::pg_reads {

namespace {

// A LIMIT must fit a BIGINT; callers may pass "no limit" as SIZE_MAX.
int64_t clamp_limit(size_t n) {
  constexpr size_t most = size_t{1} << 40;
  return static_cast<int64_t>(n < most ? n : most);
}

caf::expected<std::optional<operation>> load_one(pg_connection& conn, const char* stmt,
                                                 const std::string& arg) {
  pg_params p{1};
  p.add(arg);
  auto r = conn.exec_prepared(stmt, p, stmt);
  if (!r)
    return std::move(r.error());
  if (r->rows() == 0)
    return std::optional<operation>{};
  auto op = pg_read_operation(pg_row{*r, 0});
  if (!op)
    return std::move(op.error());
  return std::optional<operation>{std::move(*op)};
}

} // namespace

caf::expected<std::optional<operation>> load(pg_connection& conn, const std::string& id) {
  return load_one(conn, pg_stmt::load, id);
}

caf::expected<std::optional<operation>> find_by_key(pg_connection& conn, const std::string& key) {
  if (key.empty())
    return std::optional<operation>{};
  return load_one(conn, pg_stmt::find_by_key, key);
}

caf::expected<std::vector<operation>> load_active_page(pg_connection& conn,
                                                       const std::optional<active_position>& after,
                                                       size_t limit) {
  pg_params p{3};
  p.add(after ? to_micros(after->created_at) : INT64_MIN);
  p.add(after ? after->id : std::string{});
  p.add(clamp_limit(limit));
  auto r = conn.exec_prepared(pg_stmt::load_active, p, "load active");
  if (!r)
    return std::move(r.error());
  return pg_read_operations(*r);
}

caf::expected<std::vector<schedule>> schedules(pg_connection& conn, const std::string& id) {
  pg_params p{1};
  if (!id.empty())
    p.add(id);
  auto r = id.empty() ? conn.exec("SELECT body FROM schedules ORDER BY id", p, "schedules")
                      : conn.exec("SELECT body FROM schedules WHERE id = $1", p, "schedule");
  if (!r)
    return std::move(r.error());
  std::vector<schedule> out;
  for (int row = 0; row < r->rows(); ++row) {
    auto s = codec::decode_schedule(r->text(row, 0));
    if (!s)
      return std::move(s.error());
    out.push_back(std::move(*s));
  }
  return out;
}

caf::expected<operation_page> list(pg_connection& conn, const list_filter& filter) {
  if (filter.limit == 0)
    return make_error(errc::invalid_argument, "list limit must be positive");
  // Built per call so the planner sees which filters are present and picks
  // the matching index.
  std::string sql = "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations";
  pg_params p{7};
  const char* sep = " WHERE ";
  auto where = [&](const std::string& cond) {
    sql += sep;
    sql += cond;
    sep = " AND ";
  };
  if (filter.state) {
    // As the indexes have it (migration 10): ended operations by their end
    // state, live ones among the live.
    p.add(to_string(*filter.state));
    if (is_terminal(*filter.state))
      where("end_state = $" + std::to_string(p.size()));
    else
      where("ended_at IS NULL AND state = $" + std::to_string(p.size()));
  }
  if (!filter.workflow.empty()) {
    p.add(filter.workflow);
    where("workflow = $" + std::to_string(p.size()));
  }
  if (!filter.parent.empty()) {
    p.add(filter.parent);
    where("parent_id = $" + std::to_string(p.size()));
  }
  if (!filter.schedule.empty()) {
    p.add(filter.schedule);
    where("schedule_id = $" + std::to_string(p.size()));
  }
  if (!filter.cursor.empty()) {
    auto pos = codec::decode_cursor(filter.cursor);
    if (!pos)
      return std::move(pos.error());
    p.add(to_micros(pos->created_at));
    p.add(pos->id);
    where("(created_at, id) < ($" + std::to_string(p.size() - 1) + ", $" + std::to_string(p.size())
          + ")");
  }
  // One row more than asked tells whether another page follows.
  p.add(clamp_limit(filter.limit) + 1);
  sql += " ORDER BY created_at DESC, id DESC LIMIT $" + std::to_string(p.size());
  auto r = conn.exec(sql.c_str(), p, "list");
  if (!r)
    return std::move(r.error());
  auto items = pg_read_operations(*r);
  if (!items)
    return std::move(items.error());
  operation_page page;
  page.items = std::move(*items);
  if (page.items.size() > filter.limit) {
    page.items.resize(filter.limit);
    if (!page.items.empty()) {
      auto& last = page.items.back();
      page.next_cursor = codec::encode_cursor({last.created_at, last.id});
    }
  }
  return page;
}

caf::expected<std::vector<event>> events_after(pg_connection& conn, int64_t after, size_t limit) {
  pg_params p{2};
  p.add(after);
  p.add(clamp_limit(limit));
  auto r = conn.exec_prepared(pg_stmt::events_after, p, "events after");
  if (!r)
    return std::move(r.error());
  return pg_read_events(*r);
}

caf::expected<std::vector<routed_event>> routed_events_after(pg_connection& conn, int64_t after,
                                                             size_t limit) {
  pg_params p{2};
  p.add(after);
  p.add(clamp_limit(limit));
  auto r = conn.exec("SELECT " STEPWISE_ROUTED_EVENT_COLUMNS " FROM events "
                     "WHERE seq > $1 ORDER BY seq LIMIT $2",
                     p, "events for sinks");
  if (!r)
    return std::move(r.error());
  std::vector<routed_event> out;
  out.reserve(static_cast<size_t>(r->rows()));
  for (int i = 0; i < r->rows(); ++i) {
    auto ev = read_routed_event(pg_row{*r, i});
    if (!ev)
      return std::move(ev.error());
    out.push_back(std::move(*ev));
  }
  return out;
}

caf::expected<int64_t> last_seq(pg_connection& conn) {
  pg_params none;
  auto r = conn.exec_prepared(pg_stmt::last_seq, none, "last seq");
  if (!r)
    return std::move(r.error());
  return r->rows() == 0 ? int64_t{0} : r->int64(0, 0);
}

} // namespace stepwise::pg_reads
