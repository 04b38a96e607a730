// Schedules in the SQLite store: written by the batch commit (with the
// revision check of every write), read whole.
#include "engine/errc.hpp"
#include "storage/schedule_row.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

caf::expected<bool> sqlite_store::write_schedule(const checkpoint& cp) {
  auto& s = *cp.sched;
  const char* sql =
    cp.what == checkpoint::kind::schedule_delete
      ? "DELETE FROM schedules WHERE id = ?1 AND revision = ?2 - 1"
    : s.revision == 1
      ? "INSERT INTO schedules (id, revision, body) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING"
      : "UPDATE schedules SET revision = ?2, body = ?3 WHERE id = ?1 AND revision = ?2 - 1";
  auto stmt = writer_->prepare(sql);
  if (!stmt)
    return std::move(stmt.error());
  statement_reset reset{**stmt};
  (*stmt)->bind(1, s.id);
  (*stmt)->bind(2, s.revision);
  std::string body;
  if (cp.what == checkpoint::kind::schedule) {
    body = codec::encode_schedule(s);
    (*stmt)->bind(3, body);
  }
  auto rc = (*stmt)->step();
  if (rc != SQLITE_DONE)
    return writer_->failure("writing schedule " + s.id, rc);
  return sqlite3_changes(writer_->handle()) > 0;
}

namespace {

caf::expected<std::vector<schedule>> read_schedules(sqlite_read_pool& readers,
                                                    const std::string* id) {
  auto conn = readers.acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare(id ? "SELECT body FROM schedules WHERE id = ?1"
                                  : "SELECT body FROM schedules ORDER BY id");
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  if (id)
    s.bind(1, *id);
  std::vector<schedule> out;
  for (;;) {
    auto rc = s.step();
    if (rc == SQLITE_DONE)
      return out;
    if (rc != SQLITE_ROW)
      return (*conn)->failure("reading schedules", rc);
    auto one = codec::decode_schedule(s.text(0));
    if (!one)
      return std::move(one.error());
    out.push_back(std::move(*one));
  }
}

} // namespace

caf::expected<std::vector<schedule>> sqlite_store::load_schedules() {
  return read_schedules(*readers_, nullptr);
}

caf::expected<std::optional<schedule>> sqlite_store::load_schedule(const std::string& id) {
  auto found = read_schedules(*readers_, &id);
  if (!found)
    return std::move(found.error());
  if (found->empty())
    return std::optional<schedule>{};
  return std::optional<schedule>{std::move(found->front())};
}

} // namespace stepwise
