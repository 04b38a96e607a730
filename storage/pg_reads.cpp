#include "storage/pg_reads.hpp"

#include <algorithm>

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

using labels_t = std::vector<std::pair<std::string, std::string>>;

// The list walks the first label's index and checks the others per row:
// the label with the fewest operations goes first (each counted up to a
// bound, all in one query, so that counting stays cheap), or two common
// labels that rarely meet would walk all of one's rows.
caf::expected<labels_t> rarest_first(pg_connection& conn, const labels_t& labels) {
  if (labels.size() < 2)
    return labels;
  pg_params p{2 * labels.size()};
  std::string sql = "SELECT ";
  for (size_t i = 0; i < labels.size(); ++i) {
    p.add(labels[i].first);
    p.add(labels[i].second);
    sql += i == 0 ? "" : ", ";
    sql += "(SELECT count(*) FROM (SELECT 1 FROM operation_labels WHERE label_key = $"
           + std::to_string(2 * i + 1) + " AND label_value = $" + std::to_string(2 * i + 2)
           + " LIMIT 10000) s)";
  }
  auto r = conn.exec(sql.c_str(), p, "counting the labels' operations");
  if (!r)
    return std::move(r.error());
  std::vector<std::pair<int64_t, size_t>> counts;
  for (size_t i = 0; i < labels.size(); ++i)
    counts.emplace_back(r->int64(0, static_cast<int>(i)), i);
  std::stable_sort(counts.begin(), counts.end());
  labels_t out;
  for (auto& c : counts)
    out.push_back(labels[c.second]);
  return out;
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
  // the matching index. A key names at most one operation (its unique
  // index); otherwise the first label's index gives the rows in list order.
  bool by_label = !filter.labels.empty() && filter.idempotency_key.empty();
  auto ordered = by_label ? rarest_first(conn, filter.labels) : filter.labels;
  if (!ordered)
    return std::move(ordered.error());
  auto& labels = *ordered;
  std::string created = by_label ? "label_created_at" : "created_at";
  std::string id = by_label ? "label_operation_id" : "id";
  std::string sql = "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operations";
  pg_params p{12 + 2 * filter.labels.size()};
  const char* sep = " WHERE ";
  auto where = [&](const std::string& cond) {
    sql += sep;
    sql += cond;
    sep = " AND ";
  };
  auto param = [&] { return "$" + std::to_string(p.size()); };
  if (by_label) {
    sql = "SELECT " STEPWISE_PG_OP_COLUMNS " FROM operation_labels JOIN operations "
          "ON id = label_operation_id";
    p.add(labels[0].first);
    where("label_key = " + param());
    p.add(labels[0].second);
    where("label_value = " + param());
  }
  if (filter.state) {
    // As the indexes have it (migration 10): ended operations by their end
    // state, live ones among the live.
    p.add(to_string(*filter.state));
    if (is_terminal(*filter.state))
      where("end_state = " + param());
    else
      where("ended_at IS NULL AND state = " + param());
  }
  if (!filter.workflow.empty()) {
    p.add(filter.workflow);
    where("workflow = " + param());
  }
  if (!filter.parent.empty()) {
    p.add(filter.parent);
    where("parent_id = " + param());
  }
  if (!filter.schedule.empty()) {
    p.add(filter.schedule);
    where("schedule_id = " + param());
  }
  if (!filter.idempotency_key.empty()) {
    p.add(filter.idempotency_key);
    where("idempotency_key = " + param());
  }
  if (filter.created_after) {
    p.add(to_micros(*filter.created_after));
    where(created + " > " + param());
  }
  if (filter.created_before) {
    p.add(to_micros(*filter.created_before));
    where(created + " < " + param());
  }
  for (size_t i = by_label ? 1 : 0; i < labels.size(); ++i) {
    p.add(labels[i].first);
    auto k = param();
    p.add(labels[i].second);
    where("EXISTS (SELECT 1 FROM operation_labels l WHERE l.label_operation_id = operations.id "
          "AND l.label_key = "
          + k + " AND l.label_value = " + param() + ")");
  }
  if (!filter.cursor.empty()) {
    auto pos = codec::decode_cursor(filter.cursor);
    if (!pos)
      return std::move(pos.error());
    p.add(to_micros(pos->created_at));
    p.add(pos->id);
    where("(" + created + ", " + id + ") < ($" + std::to_string(p.size() - 1) + ", $"
          + std::to_string(p.size()) + ")");
  }
  // One row more than asked tells whether another page follows.
  p.add(clamp_limit(filter.limit) + 1);
  sql += " ORDER BY " + created + " DESC, " + id + " DESC LIMIT $" + std::to_string(p.size());
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

caf::expected<std::vector<event>> events_of(pg_connection& conn, const std::string& operation_id,
                                            int64_t after, size_t limit) {
  pg_params p{3};
  p.add(operation_id);
  p.add(after);
  p.add(clamp_limit(limit));
  // events_by_operation (migration 8) holds (operation_id, seq).
  auto r = conn.exec("SELECT " STEPWISE_EVENT_COLUMNS " FROM events "
                     "WHERE operation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                     p, "events of an operation");
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
