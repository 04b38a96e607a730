// The definition_store side of pg_store: workflows defined as data, on the
// pooled connections. A put is one statement: two servers putting at once
// get distinct versions (the loser of the primary key tries again).

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_params.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

// The other servers read the definitions again (workflows_channel).
constexpr auto pg_put_definition_sql =
  "WITH newest AS (SELECT version, body FROM workflow_definitions WHERE name = $1 "
  "ORDER BY version DESC LIMIT 1), ins AS ("
  "INSERT INTO workflow_definitions (name, version, body, created_at) "
  "SELECT $1, COALESCE((SELECT version FROM newest), 0) + 1, $2, stepwise_now_us() "
  "WHERE NOT EXISTS (SELECT 1 FROM newest WHERE body = $2) "
  "ON CONFLICT (name, version) DO NOTHING RETURNING version, body, created_at) "
  "SELECT version, body, created_at, pg_notify('stepwise_workflows', $1) FROM ins";

constexpr auto pg_newest_definition_sql =
  "SELECT version, body, created_at FROM workflow_definitions WHERE name = $1 "
  "ORDER BY version DESC LIMIT 1";

// One statement: the operation that keeps it, if any, else the delete.
constexpr auto pg_live_operation_sql =
  "SELECT id FROM operations WHERE workflow = $1 AND state <> 'succeeded' "
  "AND state <> 'failed' AND state <> 'canceled' LIMIT 1";

constexpr auto pg_delete_definitions_sql =
  "WITH del AS (DELETE FROM workflow_definitions WHERE name = $1 AND NOT EXISTS (SELECT 1 "
  "FROM operations WHERE workflow = $1 AND state <> 'succeeded' AND state <> 'failed' "
  "AND state <> 'canceled') RETURNING version) "
  "SELECT version, pg_notify('stepwise_workflows', $1) FROM del";

stored_definition pg_definition(const pg_result& r, std::string name, int first) {
  return {std::move(name), static_cast<int32_t>(r.int64(0, first)),
          std::string(r.text(0, first + 1)), from_micros(r.int64(0, first + 2))};
}

} // namespace

caf::expected<std::vector<stored_definition>> pg_store::load_definitions() {
  using result = caf::expected<std::vector<stored_definition>>;
  return readers_->run([](pg_connection& c) -> result {
    auto r = c.exec("SELECT name, version, body, created_at FROM workflow_definitions "
                    "ORDER BY name, version",
                    "read workflow definitions");
    if (!r)
      return std::move(r.error());
    std::vector<stored_definition> out;
    for (int i = 0; i < r->rows(); ++i)
      out.push_back({std::string(r->text(i, 0)), static_cast<int32_t>(r->int64(i, 1)),
                     std::string(r->text(i, 2)), from_micros(r->int64(i, 3))});
    return out;
  });
}

caf::expected<definition_put> pg_store::put_definition(const std::string& name,
                                                       const std::string& body) {
  using result = caf::expected<definition_put>;
  return readers_->run([&](pg_connection& c) -> result {
    for (int tries = 0; tries < 5; ++tries) {
      pg_params p{2};
      p.add(name);
      p.add(body);
      auto r = c.exec(pg_put_definition_sql, p, "store workflow definition");
      if (!r)
        return std::move(r.error());
      if (r->rows() > 0)
        return definition_put{pg_definition(*r, name, 0), true};
      pg_params q{1};
      q.add(name);
      auto newest = c.exec(pg_newest_definition_sql, q, "read workflow definition");
      if (!newest)
        return std::move(newest.error());
      if (newest->rows() > 0 && newest->text(0, 1) == body)
        return definition_put{pg_definition(*newest, name, 0), false};
      // Another server put a version meanwhile: put after it.
    }
    return make_error(errc::store_failure,
                      "storing workflow " + name + ": other servers kept putting versions of it");
  });
}

caf::expected<int32_t> pg_store::delete_definition(const std::string& name) {
  using result = caf::expected<int32_t>;
  return readers_->run([&](pg_connection& c) -> result {
    pg_params p{1};
    p.add(name);
    auto del = c.exec(pg_delete_definitions_sql, p, "delete workflow definitions");
    if (!del)
      return std::move(del.error());
    auto n = del->rows();
    if (n > 0)
      return static_cast<int32_t>(n);
    auto live = c.exec(pg_live_operation_sql, p, "find a live operation");
    if (!live)
      return std::move(live.error());
    if (live->rows() > 0)
      return make_error(errc::invalid_state, "operation " + std::string(live->text(0, 0))
                                               + " of workflow '" + name + "' has not ended");
    return 0;
  });
}

} // namespace stepwise
