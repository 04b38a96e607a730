// The SQLite store's side of `stepwise secrets rotate` (sealed_rows.hpp):
// rows are read on a pooled reader and rewritten in short write
// transactions, so a server writing the same file waits at most one batch.
#include "storage/sqlite_store.hpp"

#include "engine/errc.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sealed_where.hpp"

namespace stepwise {

namespace {

constexpr const char* sqlite_sealed_select_sql =
  "SELECT id, revision, input, data FROM operations WHERE id > ?1 AND " STEPWISE_SEALED_WHERE
  " ORDER BY id LIMIT ?2";

constexpr const char* sqlite_sealed_update_sql =
  "UPDATE operations SET input = ?1, data = ?2 WHERE id = ?3 AND revision = ?4";

} // namespace

caf::expected<std::vector<sealed_row>> sqlite_store::sealed_after(const std::string& after,
                                                                  size_t limit) {
  auto conn = readers_->acquire();
  if (!conn)
    return std::move(conn.error());
  auto stmt = (*conn)->prepare(sqlite_sealed_select_sql);
  if (!stmt)
    return std::move(stmt.error());
  auto& s = **stmt;
  statement_reset reset{s};
  s.bind(1, after);
  s.bind(2, static_cast<int64_t>(std::min<size_t>(limit, 1u << 30)));
  std::vector<sealed_row> rows;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    rows.push_back(
      {std::string{s.text(0)}, s.int64(1), std::string{s.text(2)}, std::string{s.text(3)}});
  if (rc != SQLITE_DONE)
    return (*conn)->failure("reading operations with sealed values", rc);
  return rows;
}

caf::expected<size_t> sqlite_store::rewrite_sealed(const std::vector<sealed_row>& rows) {
  if (rows.empty())
    return size_t{0};
  return in_write_transaction<size_t>([&]() -> caf::expected<size_t> {
    auto upd = writer_->prepare(sqlite_sealed_update_sql);
    if (!upd)
      return std::move(upd.error());
    size_t written = 0;
    for (auto& row : rows) {
      statement_reset reset{**upd};
      (*upd)->bind(1, row.input);
      (*upd)->bind(2, row.data);
      (*upd)->bind(3, row.id);
      (*upd)->bind(4, row.revision);
      if (auto rc = (*upd)->step(); rc != SQLITE_DONE)
        return writer_->failure("rewriting the sealed values of " + row.id, rc);
      written += static_cast<size_t>(sqlite3_changes(writer_->handle()));
    }
    return written;
  });
}

} // namespace stepwise
