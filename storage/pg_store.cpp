#include "storage/pg_store.hpp"

#include "engine/errc.hpp"
#include "storage/pg_admission.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_migrations.hpp"
#include "storage/pg_read_pool.hpp"
#include "storage/pg_reads.hpp"
#include "storage/pg_statements.hpp"

namespace stepwise {

caf::expected<std::shared_ptr<pg_store>> pg_store::open(const std::string& uri,
                                                        pg_options options) {
  auto conn = pg_connection::open(uri);
  if (!conn)
    return std::move(conn.error());
  if (auto err = pg_migrate(**conn))
    return err;
  if (auto err = pg_prepare_all(**conn))
    return err;
  auto readers = std::make_unique<pg_read_pool>(uri, options.max_readers);
  return std::shared_ptr<pg_store>{
    new pg_store(uri, std::move(*conn), std::move(readers))};
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
  return on_writer(needs_join::no, [&](pg_connection& c) {
    return pg_commit(c, batch, fence_ ? &*fence_ : nullptr);
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

caf::expected<std::vector<operation>> pg_store::load_active() {
  return readers_->run(
    [](pg_connection& c) { return pg_reads::load_active(c); });
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
