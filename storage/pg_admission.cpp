// The PostgreSQL store's admission round. Several processes share the
// database: a transaction-scoped advisory lock makes their rounds run one
// at a time, each reading what the ones before it committed.
#include "storage/pg_admission.hpp"

#include "engine/errc.hpp"
#include "storage/event_row.hpp"
#include "storage/pg_columns.hpp"
#include "storage/pg_statements.hpp"

namespace stepwise {

namespace {

/// The advisory lock of admission rounds (any constant the other users of
/// the database do not take).
constexpr const char* begin_sql = "BEGIN; SELECT pg_advisory_xact_lock(7358320145)";

// A round reads in full only the operations that wait (queued, or admitted
// and not started); of those that run it needs how many per workflow and
// which holds each key a waiting one has (`admission_held`): the rows that
// run stay in the database.
constexpr const char* pg_queue_sql =
  "SELECT id, workflow, COALESCE(queue_key, ''), admission, state, blocked_by, revision "
  "FROM operations WHERE admission IS NOT NULL AND ended_at IS NULL "
  "AND (admission = 'queued' OR state = 'pending') ORDER BY created_at, id";

#define SW_RUNNING "admission = 'admitted' AND ended_at IS NULL AND state <> 'pending'"

constexpr const char* pg_running_sql =
  "SELECT workflow, count(*) FROM operations WHERE " SW_RUNNING " GROUP BY workflow";

constexpr const char* pg_holders_sql =
  "SELECT queue_key, id FROM operations WHERE " SW_RUNNING " AND queue_key = ANY($1::TEXT[]) "
  "ORDER BY created_at, id";
#undef SW_RUNNING

constexpr const char* pg_admission_sql =
  "UPDATE operations o SET admission = u.a, blocked_by = u.b "
  "FROM unnest($1::TEXT[], $2::TEXT[], $3::TEXT[]) AS u(id, a, b) WHERE o.id = u.id";

caf::expected<std::vector<admission_row>> read_queue(pg_connection& conn) {
  auto r = conn.exec(pg_queue_sql, "admission round: reading the queue");
  if (!r)
    return std::move(r.error());
  std::vector<admission_row> rows;
  rows.reserve(static_cast<size_t>(r->rows()));
  for (int i = 0; i < r->rows(); ++i) {
    auto adm = parse_admission(r->text(i, 3));
    auto state = parse_op_state(r->text(i, 4));
    if (!adm || !state)
      return make_error(errc::store_failure, "admission round: operation '"
                                               + std::string{r->text(i, 0)}
                                               + "' has an unknown admission or state");
    rows.push_back({std::string{r->text(i, 0)}, std::string{r->text(i, 1)},
                    std::string{r->text(i, 2)}, *adm, *state, std::string{r->text(i, 5)},
                    r->int64(i, 6)});
  }
  return rows;
}

caf::expected<admission_held> read_held(pg_connection& conn,
                                        const std::vector<admission_row>& waiting) {
  admission_held held;
  auto counts = conn.exec(pg_running_sql, "admission round: counting what runs");
  if (!counts)
    return std::move(counts.error());
  for (int i = 0; i < counts->rows(); ++i)
    held.running[std::string{counts->text(i, 0)}] = counts->int64(i, 1);
  pg_array keys{pg_array::type::text};
  for (auto& row : waiting)
    if (!row.key.empty())
      keys.add(row.key);
  if (keys.size() == 0)
    return held;
  pg_params p{1};
  p.add_binary(keys.bytes());
  auto holders = conn.exec(pg_holders_sql, p, "admission round: reading the keys' holders");
  if (!holders)
    return std::move(holders.error());
  for (int i = 0; i < holders->rows(); ++i)
    held.keys[std::string{holders->text(i, 0)}] = std::string{holders->text(i, 1)};
  return held;
}

caf::error write_updates(pg_connection& conn, const std::vector<admission_update>& updates) {
  if (updates.empty())
    return caf::error{};
  using t = pg_array::type;
  pg_array ids{t::text}, adms{t::text}, blockers{t::text};
  for (auto& u : updates) {
    ids.add(u.id);
    adms.add(to_string(u.admission));
    blockers.add(u.blocked_by);
  }
  pg_params p{3};
  p.add_binary(ids.bytes());
  p.add_binary(adms.bytes());
  p.add_binary(blockers.bytes());
  auto r = conn.exec(pg_admission_sql, p, "admission round: writing admissions");
  return r ? caf::error{} : std::move(r.error());
}

caf::error append_events(pg_connection& conn, std::vector<event>& events) {
  if (events.empty())
    return caf::error{};
  pg_event_columns cols;
  std::string extra;
  for (auto& ev : events)
    cols.add(encode_event_row(ev, extra));
  auto p = cols.params();
  auto r = conn.exec_prepared(pg_stmt::append_events, p, "admission round: appending events");
  if (!r)
    return std::move(r.error());
  auto seq = r->int64(0, 0) - cols.size();
  for (auto& ev : events)
    ev.seq = ++seq;
  return caf::error{};
}

caf::expected<admission_round> round_in_transaction(pg_connection& conn,
                                                    const admission_limits& limits,
                                                    time_point now) {
  auto rows = read_queue(conn);
  if (!rows)
    return std::move(rows.error());
  auto held = read_held(conn, *rows);
  if (!held)
    return std::move(held.error());
  auto round = plan_round(*rows, limits, now, *held);
  if (auto err = write_updates(conn, round.updates))
    return err;
  if (auto err = append_events(conn, round.events))
    return err;
  if (auto r = conn.exec("COMMIT", "admission round: commit"); !r)
    return std::move(r.error());
  return round;
}

} // namespace

caf::expected<admission_round> pg_admit(pg_connection& conn, const admission_limits& limits,
                                        time_point now) {
  if (auto r = conn.exec(begin_sql, "admission round: begin"); !r)
    return std::move(r.error());
  auto round = round_in_transaction(conn, limits, now);
  if (!round && !conn.broken()) {
    if (auto r = conn.exec("ROLLBACK", "admission round: rollback"); !r)
      conn.poison();
  }
  return round;
}

} // namespace stepwise
