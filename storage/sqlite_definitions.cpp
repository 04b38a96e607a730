// The definition_store side of sqlite_store: workflows defined as data.
// Writes are light writes on the one write connection.

#include <chrono>

#include "engine/errc.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

namespace {

constexpr auto newest_definition_sql =
  "SELECT version, body, created_at FROM workflow_definitions WHERE name = ?1 "
  "ORDER BY version DESC LIMIT 1";

constexpr auto insert_definition_sql =
  "INSERT INTO workflow_definitions (name, version, body, created_at) VALUES (?1, ?2, ?3, ?4)";

constexpr auto live_operation_sql =
  "SELECT id FROM operations WHERE workflow = ?1 AND state <> 'succeeded' "
  "AND state <> 'failed' AND state <> 'canceled' LIMIT 1";

constexpr auto delete_definitions_sql = "DELETE FROM workflow_definitions WHERE name = ?1";

stored_definition read_definition(const sqlite_statement& s, std::string name, int first) {
  return {std::move(name), static_cast<int32_t>(s.int64(first)), std::string(s.text(first + 1)),
          from_micros(s.int64(first + 2))};
}

} // namespace

caf::expected<std::vector<stored_definition>> sqlite_store::load_definitions() {
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare("SELECT name, version, body, created_at FROM "
                               "workflow_definitions ORDER BY name, version");
  if (!stmt)
    return std::move(stmt.error());
  std::vector<stored_definition> out;
  statement_reset reset{**stmt};
  for (;;) {
    auto rc = (*stmt)->step();
    if (rc == SQLITE_DONE)
      return out;
    if (rc != SQLITE_ROW)
      return (*conn)->failure("reading workflow definitions", rc);
    out.push_back(read_definition(**stmt, std::string((*stmt)->text(0)), 1));
  }
}

caf::expected<definition_put> sqlite_store::put_definition(const std::string& name,
                                                           const std::string& body) {
  definition_put out;
  auto what = "storing workflow " + name;
  auto err = light_write(what, [&](sqlite_connection& conn) -> caf::error {
    auto newest = conn.prepare(newest_definition_sql);
    if (!newest)
      return std::move(newest.error());
    auto& s = **newest;
    statement_reset reset{s};
    s.bind(1, name);
    int32_t version = 0;
    auto rc = s.step();
    if (rc == SQLITE_ROW) {
      out.def = read_definition(s, name, 0);
      version = out.def.version;
      if (out.def.body == body)
        return caf::error{};
    } else if (rc != SQLITE_DONE) {
      return conn.failure(what, rc);
    }
    auto ins = conn.prepare(insert_definition_sql);
    if (!ins)
      return std::move(ins.error());
    auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
    out.def = {name, version + 1, body, now};
    out.created = true;
    (*ins)->bind(1, name);
    (*ins)->bind(2, int64_t{version + 1});
    (*ins)->bind(3, body);
    (*ins)->bind(4, to_micros(now));
    return conn.run(**ins, what);
  });
  if (err)
    return err;
  return out;
}

caf::expected<int32_t> sqlite_store::delete_definition(const std::string& name) {
  int32_t deleted = 0;
  auto what = "deleting workflow " + name;
  auto err = light_write(what, [&](sqlite_connection& conn) -> caf::error {
    auto live = conn.prepare(live_operation_sql);
    if (!live)
      return std::move(live.error());
    statement_reset reset{**live};
    (*live)->bind(1, name);
    auto rc = (*live)->step();
    if (rc == SQLITE_ROW)
      return make_error(errc::invalid_state, "operation " + std::string((*live)->text(0))
                                               + " of workflow '" + name + "' has not ended");
    if (rc != SQLITE_DONE)
      return conn.failure(what, rc);
    auto del = conn.prepare(delete_definitions_sql);
    if (!del)
      return std::move(del.error());
    (*del)->bind(1, name);
    if (auto e = conn.run(**del, what))
      return e;
    deleted = sqlite3_changes(conn.handle());
    return caf::error{};
  });
  if (err)
    return err;
  return deleted;
}

} // namespace stepwise
