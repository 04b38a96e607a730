#include "storage/pg_store.hpp"


#include "engine/errc.hpp"
#include "engine/random_hex.hpp"
#include "storage/pg_admission.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_migrations.hpp"
#include "storage/pg_params.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_reads.hpp"
#include "storage/pg_statements.hpp"

namespace stepwise {

namespace {

// Creates the writer's mark row, so that reading it back after a broken
// COMMIT waits on a row the commit locked; drops the marks of writers gone
// for a week (each process leaves one row; a live one rewrites it with
// every commit).
caf::error open_mark(pg_connection& conn, const std::string& writer) {
  pg_params p{1};
  p.add(writer);
  auto made = conn.exec("INSERT INTO commit_marks (writer, token, last_seq, at) "
                        "VALUES ($1, 0, 0, stepwise_now_us()) ON CONFLICT DO NOTHING",
                        p, "create commit mark");
  if (!made)
    return std::move(made.error());
  auto pruned = conn.exec("DELETE FROM commit_marks WHERE at < stepwise_now_us() "
                          "- 7 * 86400 * 1000000::BIGINT",
                          "prune commit marks");
  return pruned ? caf::none : std::move(pruned.error());
}

} // namespace

caf::expected<std::shared_ptr<pg_store>> pg_store::open(const std::string& uri,
                                                        pg_options options) {
  auto conn = pg_connection::open(uri);
  if (!conn)
    return std::move(conn.error());
  if (auto err = pg_migrate(**conn))
    return err;
  if (auto err = pg_prepare_all(**conn))
    return err;
  auto writer_id = random_hex(16);
  if (auto err = open_mark(**conn, writer_id))
    return err;
  auto readers = std::make_unique<pg_read_pool>(uri, options.max_readers);
  auto st = std::shared_ptr<pg_store>{
    new pg_store(uri, std::move(*conn), std::move(readers))};
  st->mark_.writer = std::move(writer_id);
  return st;
}

pg_store::pg_store(std::string uri, std::unique_ptr<pg_connection> writer,
                   std::unique_ptr<pg_read_pool> readers)
  : uri_(std::move(uri)),
    writer_(std::move(writer)),
    readers_(std::move(readers)) {
  // nop
}

pg_store::~pg_store() = default;

std::string pg_store::backend() const {
  return "postgresql";
}

caf::expected<pg_connection*> pg_store::writer() {
  if (writer_ && !writer_->broken())
    return writer_.get();
  writer_.reset();
  auto conn = pg_connection::open(uri_);
  if (!conn)
    return std::move(conn.error());
  if (auto err = pg_prepare_all(**conn))
    return err;
  writer_ = std::move(*conn);
  return writer_.get();
}

caf::error pg_store::not_joined() {
  return make_error(errc::invalid_state, "pg: lease: join first");
}

void pg_store::forget_if_broken() {
  if (writer_ && writer_->broken())
    writer_.reset();
}

// -- writes -------------------------------------------------------------------

caf::expected<commit_result>
pg_store::commit(const std::vector<checkpoint>& batch) {
  return on_writer(needs_join::no,
                   [&](pg_connection& c) -> caf::expected<commit_result> {
    if (unsure_) {
      // The last commit broke during COMMIT, and this is its retry.
      auto known = pg_resolve(c, mark_, *unsure_);
      if (!known)
        return std::move(known.error());
      unsure_.reset();
      if (*known)
        return std::move(**known);
    }
    ++mark_.token;
    return pg_commit(c, batch, fence_ ? &*fence_ : nullptr, mark_, unsure_);
  });
}

caf::error pg_store::ping() {
  return on_writer(needs_join::no, [](pg_connection& c) -> caf::error {
    auto r = c.exec("SELECT 1", "ping");
    return r ? caf::none : std::move(r.error());
  });
}

caf::expected<admission_round> pg_store::admit(const admission_limits& limits,
                                               time_point now) {
  return on_writer(needs_join::no,
                   [&](pg_connection& c) { return pg_admit(c, limits, now); });
}

// -- reads --------------------------------------------------------------------

caf::expected<std::optional<operation>> pg_store::load(const std::string& id) {
  return readers_->run([&](pg_connection& c) { return pg_reads::load(c, id); });
}

caf::expected<std::optional<operation>>
pg_store::find_by_key(const std::string& key) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::find_by_key(c, key); });
}

caf::expected<std::vector<operation>>
pg_store::load_active_page(const std::optional<active_position>& after, size_t limit) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::load_active_page(c, after, limit); });
}

caf::expected<operation_page> pg_store::list(const list_filter& filter) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::list(c, filter); });
}

caf::expected<std::vector<event>> pg_store::events_after(int64_t after,
                                                         size_t limit) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::events_after(c, after, limit); });
}

caf::expected<int64_t> pg_store::last_seq() {
  return readers_->run(
    [](pg_connection& c) { return pg_reads::last_seq(c); });
}

} // namespace stepwise
