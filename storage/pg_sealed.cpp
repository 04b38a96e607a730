// The PostgreSQL store's side of `stepwise secrets rotate` (sealed_rows.hpp).
// A rewrite touches only rows whose revision is unchanged and leaves the
// revision as it is: a server's checkpoint that comes after it goes
// through (with what the server holds, sealed with its current key).
#include "storage/pg_store.hpp"

#include <cstdlib>

#include "engine/errc.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/sealed_where.hpp"

namespace stepwise {

namespace {

constexpr const char* pg_sealed_select_sql =
  "SELECT id, revision, input, data FROM operations WHERE id > $1 AND " STEPWISE_SEALED_WHERE
  " ORDER BY id LIMIT $2";

constexpr const char* pg_sealed_update_sql =
  "UPDATE operations SET input = $1, data = $2 WHERE id = $3 AND revision = $4";

caf::expected<size_t> rewrite(pg_connection& c, const std::vector<sealed_row>& rows) {
  size_t written = 0;
  for (auto& row : rows) {
    pg_params p{4};
    p.add(row.input);
    p.add(row.data);
    p.add(row.id);
    p.add(row.revision);
    auto r = c.exec(pg_sealed_update_sql, p, "rewriting sealed values");
    if (!r)
      return std::move(r.error());
    written += static_cast<size_t>(std::atoi(PQcmdTuples(r->get())));
  }
  return written;
}

} // namespace

caf::expected<std::vector<sealed_row>> pg_store::sealed_after(const std::string& after,
                                                              size_t limit) {
  return readers_->run([&](pg_connection& c) -> caf::expected<std::vector<sealed_row>> {
    pg_params p{2};
    p.add(after);
    p.add(static_cast<int64_t>(std::min<size_t>(limit, size_t{1} << 30)));
    auto r = c.exec(pg_sealed_select_sql, p, "reading operations with sealed values");
    if (!r)
      return std::move(r.error());
    std::vector<sealed_row> rows;
    for (int i = 0; i < r->rows(); ++i)
      rows.push_back({std::string{r->text(i, 0)}, r->int64(i, 1), std::string{r->text(i, 2)},
                      std::string{r->text(i, 3)}});
    return rows;
  });
}

caf::expected<size_t> pg_store::rewrite_sealed(const std::vector<sealed_row>& rows) {
  if (rows.empty())
    return size_t{0};
  return on_writer(needs_join::no, [&](pg_connection& c) -> caf::expected<size_t> {
    if (auto begun = c.exec("BEGIN", "rewriting sealed values"); !begun)
      return std::move(begun.error());
    auto written = rewrite(c, rows);
    if (!written) {
      static_cast<void>(c.exec("ROLLBACK", "rewriting sealed values"));
      return written;
    }
    if (auto done = c.exec("COMMIT", "rewriting sealed values"); !done)
      return std::move(done.error());
    return written;
  });
}

} // namespace stepwise
