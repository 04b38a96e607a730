// The SQLite store's admission round: one process writes the file, so the
// write transaction (BEGIN IMMEDIATE) is all the serialization rounds need.
#include "storage/sqlite_store.hpp"

#include "engine/errc.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_rows.hpp"

namespace stepwise {

namespace {

constexpr const char* sqlite_queue_sql =
  "SELECT id, workflow, COALESCE(queue_key, ''), admission, state, blocked_by, revision "
  "FROM operations WHERE admission IS NOT NULL AND state <> 'succeeded' "
  "AND state <> 'failed' AND state <> 'canceled' ORDER BY created_at, id";

constexpr const char* sqlite_admission_sql =
  "UPDATE operations SET admission = ?1, blocked_by = ?2 WHERE id = ?3";

caf::expected<std::vector<admission_row>> read_queue(sqlite_connection& conn) {
  auto stmt = conn.prepare(sqlite_queue_sql);
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  std::vector<admission_row> rows;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    auto adm = parse_admission(s.text(3));
    auto state = parse_op_state(s.text(4));
    if (!adm || !state)
      return make_error(errc::store_failure, "admission round: operation '" + std::string{s.text(0)}
                                               + "' has an unknown admission or state");
    rows.push_back({std::string{s.text(0)}, std::string{s.text(1)}, std::string{s.text(2)}, *adm,
                    *state, std::string{s.text(5)}, s.int64(6)});
  }
  if (rc != SQLITE_DONE)
    return conn.failure("admission round: reading the queue", rc);
  return rows;
}

} // namespace

caf::expected<admission_round> sqlite_store::admit(const admission_limits& limits, time_point now) {
  return in_write_transaction<admission_round>([&]() -> caf::expected<admission_round> {
    auto rows = read_queue(*writer_);
    if (!rows)
      return std::move(rows.error());
    auto round = plan_round(*rows, limits, now);
    auto upd = writer_->prepare(sqlite_admission_sql);
    if (!upd)
      return std::move(upd.error());
    for (auto& u : round.updates) {
      statement_reset reset{**upd};
      (*upd)->bind(1, to_string(u.admission));
      (*upd)->bind(2, u.blocked_by);
      (*upd)->bind(3, u.id);
      if (auto rc = (*upd)->step(); rc != SQLITE_DONE)
        return writer_->failure("admission round: updating " + u.id, rc);
    }
    if (auto err = insert_events(round.events, 0))
      return err;
    return round;
  });
}

} // namespace stepwise
