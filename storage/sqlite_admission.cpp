// The SQLite store's admission round: one process writes the file, so the
// write transaction (BEGIN IMMEDIATE) is all the serialization rounds need,
// and the writer keeps the admission columns in memory (admission_mirror):
// the store is read once, not every round.
#include "storage/sqlite_store.hpp"

#include "storage/admission_mirror.hpp"

#include "engine/errc.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_rows.hpp"

namespace stepwise {

namespace {

constexpr const char* sqlite_queue_sql =
  "SELECT id, workflow, COALESCE(queue_key, ''), admission, state, blocked_by, revision, "
  "created_at "
  "FROM operations WHERE admission IS NOT NULL AND state <> 'succeeded' "
  "AND state <> 'failed' AND state <> 'canceled' ORDER BY created_at, id";

constexpr const char* sqlite_admission_sql =
  "UPDATE operations SET admission = ?1, blocked_by = ?2 WHERE id = ?3";

caf::expected<std::vector<admission_mirror::loaded_row>> read_queue(sqlite_connection& conn) {
  auto stmt = conn.prepare(sqlite_queue_sql);
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  std::vector<admission_mirror::loaded_row> rows;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    auto adm = parse_admission(s.text(3));
    auto state = parse_op_state(s.text(4));
    if (!adm || !state)
      return make_error(errc::store_failure, "admission round: operation '" + std::string{s.text(0)}
                                               + "' has an unknown admission or state");
    rows.push_back({{std::string{s.text(0)}, std::string{s.text(1)}, std::string{s.text(2)}, *adm,
                     *state, std::string{s.text(5)}, s.int64(6)},
                    s.int64(7)});
  }
  if (rc != SQLITE_DONE)
    return conn.failure("admission round: reading the queue", rc);
  return rows;
}

/// Checks that a round planned from `mirror` is the one planned from the
/// store's `rows`.
caf::error same_round(const admission_mirror& mirror,
                      std::vector<admission_mirror::loaded_row> rows,
                      const admission_limits& limits, time_point now) {
  std::vector<admission_row> plain;
  for (auto& r : rows)
    plain.push_back(std::move(r.row));
  auto want = plan_round(plain, limits, now);
  auto got = plan_round(mirror.waiting(), limits, now, mirror.held());
  auto a = describe_round(want);
  auto b = describe_round(got);
  if (a == b)
    return caf::none;
  return make_error(errc::store_failure,
                    "admission round: the mirror plans '" + b + "', the store '" + a + "'");
}

} // namespace

caf::expected<admission_round> sqlite_store::admit(const admission_limits& limits, time_point now) {
  {
    // Nothing waits (an operation ended and nobody is behind it): the
    // round has nothing to write, and needs no transaction.
    std::lock_guard<std::mutex> guard{write_mtx_};
    auto& mirror = *admission_;
    if (mirror.loaded() && !check_admission_ && mirror.nothing_waits())
      return plan_round({}, limits, now, mirror.held());
  }
  return in_write_transaction<admission_round>([&]() -> caf::expected<admission_round> {
    auto& mirror = *admission_;
    if (!mirror.loaded() || check_admission_) {
      auto rows = read_queue(*writer_);
      if (!rows)
        return std::move(rows.error());
      if (!mirror.loaded())
        mirror.load(std::move(*rows));
      else if (auto err = same_round(mirror, std::move(*rows), limits, now))
        return err;
    }
    auto round = plan_round(mirror.waiting(), limits, now, mirror.held());
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
    mirror.apply(round.updates);
    return round;
  });
}

} // namespace stepwise
