#include "storage/sqlite_store.hpp"

#include <algorithm>
#include <exception>

#include "engine/errc.hpp"
#include "storage/admission_mirror.hpp"
#include "storage/codec.hpp"
#include "storage/op_row.hpp"
#include "storage/sqlite_connection.hpp"
#include "storage/sqlite_migrations.hpp"
#include "storage/sqlite_read_pool.hpp"
#include "storage/sqlite_rows.hpp"

namespace stepwise {

struct sqlite_store::write_statements {
  sqlite_statement* begin = nullptr;
  sqlite_statement* commit = nullptr;
  sqlite_statement* rollback = nullptr;
  sqlite_statement* insert_operation = nullptr;
  sqlite_statement* update_operation = nullptr;
  sqlite_statement* update_same_state = nullptr;
  /// A retry's patched input (`patches_input`), after its update.
  sqlite_statement* update_input = nullptr;
  /// One event, and `events_per_insert` events.
  sqlite_statement* insert_event = nullptr;
  sqlite_statement* insert_events = nullptr;
};

namespace {

caf::error set_pragmas(sqlite_connection& conn, const sqlite_options& opts) {
  // journal_mode answers with the mode it got: a file system without
  // shared memory support stays in another mode, which we refuse since
  // readers would then block the writer.
  auto mode = conn.prepare("PRAGMA journal_mode = WAL");
  if (!mode)
    return std::move(mode.error());
  {
    statement_reset guard{**mode};
    if ((*mode)->step() != SQLITE_ROW)
      return conn.failure("setting journal_mode = WAL");
    if ((*mode)->text(0) != "wal")
      return make_error(errc::store_failure,
                        "setting journal_mode = WAL failed: got " + std::string{(*mode)->text(0)});
  }
  auto sync = opts.synchronous == sqlite_sync::full ? "PRAGMA synchronous = FULL"
                                                    : "PRAGMA synchronous = NORMAL";
  if (auto err = conn.exec(sync, sync))
    return err;
  // A larger WAL lets many commits' versions of the same hot pages reach
  // the database file in one checkpoint (see sqlite_options).
  auto checkpoint = "PRAGMA wal_autocheckpoint = " + std::to_string(opts.wal_autocheckpoint_pages);
  if (auto err = conn.exec(checkpoint.c_str(), checkpoint))
    return err;
  auto cache = "PRAGMA cache_size = -" + std::to_string(opts.cache_kib);
  return conn.exec(cache.c_str(), cache);
}

} // namespace

caf::expected<std::shared_ptr<sqlite_store>> sqlite_store::open(const std::string& path,
                                                                sqlite_options opts) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0)
    return make_error(errc::invalid_argument,
                      "the SQLite store needs a file path, got '" + path + "'");
  auto writer =
    sqlite_connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, opts.busy_timeout);
  if (!writer)
    return std::move(writer.error());
  auto& conn = **writer;
  if (auto err = refuse_newer_schema(conn, path))
    return err;
  if (auto err = set_pragmas(conn, opts))
    return err;
  if (auto err = migrate(conn, path))
    return err;
  auto stmts = std::make_unique<write_statements>();
  auto one_event = sqlite_rows::insert_events_sql(1);
  auto many_events = sqlite_rows::insert_events_sql(sqlite_rows::events_per_insert);
  std::pair<sqlite_statement**, const char*> wanted[] = {
    {&stmts->begin, "BEGIN IMMEDIATE"},
    {&stmts->commit, "COMMIT"},
    {&stmts->rollback, "ROLLBACK"},
    {&stmts->insert_operation, sqlite_rows::insert_operation_sql},
    {&stmts->update_operation, sqlite_rows::update_operation_sql},
    {&stmts->update_same_state, sqlite_rows::update_same_state_sql},
    {&stmts->update_input, "UPDATE operations SET input = ?1 WHERE id = ?2"},
    {&stmts->insert_event, one_event.c_str()},
    {&stmts->insert_events, many_events.c_str()},
  };
  for (auto& [slot, sql] : wanted) {
    auto stmt = conn.prepare(sql);
    if (!stmt)
      return std::move(stmt.error());
    *slot = *stmt;
  }
  auto readers = std::make_unique<sqlite_read_pool>(path, opts.busy_timeout, opts.idle_readers);
  std::shared_ptr<sqlite_store> st{new sqlite_store(path, opts.synchronous, std::move(*writer),
                                                    std::move(stmts), std::move(readers))};
  st->check_admission_ = opts.check_admission;
  return st;
}

sqlite_store::sqlite_store(std::string path, sqlite_sync sync,
                           std::unique_ptr<sqlite_connection> writer,
                           std::unique_ptr<write_statements> stmts,
                           std::unique_ptr<sqlite_read_pool> readers)
  : path_(std::move(path)),
    sync_(sync),
    writer_(std::move(writer)),
    stmts_(std::move(stmts)),
    readers_(std::move(readers)),
    buffers_(std::make_unique<sqlite_rows::row_buffers>()),
    admission_(std::make_unique<admission_mirror>()) {
  // nop
}

sqlite_store::~sqlite_store() = default;

std::string sqlite_store::backend() const {
  return "sqlite";
}

// -- writes -------------------------------------------------------------------

template <class T>
caf::expected<T> sqlite_store::in_write_transaction(const std::function<caf::expected<T>()>& body) {
  std::lock_guard<std::mutex> guard{write_mtx_};
  if (auto err = writer_->run(*stmts_->begin, "BEGIN IMMEDIATE"))
    return err;
  caf::expected<T> result{T{}};
  try {
    result = body();
  } catch (const std::exception& ex) {
    result = make_error(errc::store_failure, std::string{"commit failed: "} + ex.what());
  }
  if (result) {
    if (auto err = writer_->run(*stmts_->commit, "COMMIT"))
      result = std::move(err);
  }
  // What the transaction wrote is gone: the mirror reads the store again.
  if (!result)
    admission_->invalidate();
  // SQLite rolls back by itself after some errors (I/O, full disk); only
  // roll back a transaction that is still open.
  if (!result && sqlite3_get_autocommit(writer_->handle()) == 0)
    static_cast<void>(writer_->run(*stmts_->rollback, "ROLLBACK"));
  return result;
}

template caf::expected<admission_round> sqlite_store::in_write_transaction(
  const std::function<caf::expected<admission_round>()>&);

template caf::expected<size_t> sqlite_store::in_write_transaction(
  const std::function<caf::expected<size_t>()>&);

template caf::expected<purge_result> sqlite_store::in_write_transaction(
  const std::function<caf::expected<purge_result>()>&);

caf::expected<commit_result> sqlite_store::commit(const std::vector<checkpoint>& batch) {
  if (batch.empty())
    return commit_result{};
  return in_write_transaction<commit_result>([&] { return write_batch(batch); });
}

caf::error sqlite_store::insert_events(std::vector<event>& evs, size_t from) {
  auto& extras = buffers_->extras;
  if (extras.size() < sqlite_rows::events_per_insert)
    extras.resize(sqlite_rows::events_per_insert);
  while (from < evs.size()) {
    auto rows = std::min(evs.size() - from, sqlite_rows::events_per_insert);
    if (rows < sqlite_rows::events_per_insert)
      rows = 1;
    auto& ins = rows == 1 ? *stmts_->insert_event : *stmts_->insert_events;
    statement_reset reset{ins};
    for (size_t i = 0; i < rows; ++i)
      sqlite_rows::bind_event(ins, encode_event_row(evs[from + i], extras[i]), i);
    auto rc = ins.step();
    if (rc != SQLITE_DONE)
      return writer_->failure("inserting an event of operation " + evs[from].operation_id, rc);
    auto last = sqlite3_last_insert_rowid(writer_->handle());
    for (size_t i = 0; i < rows; ++i)
      evs[from + i].seq = last - static_cast<int64_t>(rows - 1 - i);
    from += rows;
  }
  return caf::error{};
}

caf::expected<commit_result> sqlite_store::write_batch(const std::vector<checkpoint>& batch) {
  auto* db = writer_->handle();
  auto write_input = [&](const operation& op) -> caf::error {
    std::string input = "{}";
    if (op.input) {
      input.clear();
      codec::encode_object(input, *op.input);
    }
    auto& stmt = *stmts_->update_input;
    statement_reset reset{stmt};
    stmt.bind(1, input);
    stmt.bind_ref(2, op.id);
    auto rc = stmt.step();
    if (rc != SQLITE_DONE)
      return writer_->failure("writing the patched input of operation " + op.id, rc);
    return caf::none;
  };
  commit_result out;
  out.status.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    auto& item = batch[i];
    if (item.sched) {
      auto written = write_schedule(item);
      if (!written)
        return std::move(written.error());
      auto fresh = item.what == checkpoint::kind::schedule && item.sched->revision == 1;
      if (!*written) {
        out.status.push_back(fresh ? write_status::duplicate_key : write_status::stale_revision);
        continue;
      }
      out.status.push_back(write_status::ok);
      out.events.insert(out.events.end(), item.events.begin(), item.events.end());
      continue;
    }
    if (!item.op)
      return make_error(errc::invalid_argument,
                        "commit failed: checkpoint " + std::to_string(i) + " has no operation");
    auto& op = *item.op;
    auto create = item.what == checkpoint::kind::create;
    auto row = checkpoint_row(item, buffers_->op);
    auto write = [&](sqlite_statement& stmt) -> caf::error {
      statement_reset reset{stmt};
      sqlite_rows::bind_operation(stmt, row, create);
      auto rc = stmt.step();
      if (rc != SQLITE_DONE)
        return writer_->failure((create ? "inserting operation " : "updating operation ") + op.id,
                                rc);
      return caf::none;
    };
    if (create) {
      if (auto err = write(*stmts_->insert_operation))
        return err;
    } else {
      // Most updates keep the state: try the lighter statement first; it
      // changes no row when the state moved (or the revision is stale),
      // and the full one then decides. An update known to change the state
      // goes to the full one at once.
      auto light = !item.state_changes;
      if (light)
        if (auto err = write(*stmts_->update_same_state))
          return err;
      if (!light || sqlite3_changes(db) == 0)
        if (auto err = write(*stmts_->update_operation))
          return err;
    }
    if (sqlite3_changes(db) == 0) {
      // Its events describe a transition that did not happen: skip them.
      out.status.push_back(create ? write_status::duplicate_key : write_status::stale_revision);
      continue;
    }
    if (patches_input(item))
      if (auto err = write_input(op))
        return err;
    out.status.push_back(write_status::ok);
    out.events.insert(out.events.end(), item.events.begin(), item.events.end());
    if (create)
      admission_->created(op);
    else
      admission_->updated(op);
  }
  if (auto err = insert_events(out.events, 0))
    return err;
  return out;
}

} // namespace stepwise
