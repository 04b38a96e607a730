#include "storage/pg_store.hpp"

#include <algorithm>

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
  auto readers = std::make_unique<pg_read_pool>(uri, options.max_readers);
  auto st = std::shared_ptr<pg_store>{new pg_store(
    uri, std::move(*conn), std::max<size_t>(1, options.commit_lanes), std::move(readers))};
  // Each lane writes its own mark; the first one's row exists before any
  // commit, the others' once they connect.
  auto& first = *st->lanes_.front();
  if (auto err = open_mark(*first.conn, first.mark.writer))
    return err;
  return st;
}

pg_store::pg_store(std::string uri, std::unique_ptr<pg_connection> first, size_t lanes,
                   std::unique_ptr<pg_read_pool> readers)
  : uri_(std::move(uri)), readers_(std::move(readers)) {
  for (size_t i = 0; i < lanes; ++i) {
    lanes_.push_back(std::make_unique<lane>());
    lanes_.back()->mark.writer = random_hex(16);
  }
  lanes_.front()->conn = std::move(first);
}

pg_store::~pg_store() = default;

std::string pg_store::backend() const {
  return "postgresql";
}

caf::expected<pg_connection*> pg_store::connection(lane& l) {
  if (l.conn && !l.conn->broken())
    return l.conn.get();
  l.conn.reset();
  auto conn = pg_connection::open(uri_);
  if (!conn)
    return std::move(conn.error());
  if (auto err = pg_prepare_all(**conn))
    return err;
  if (auto err = open_mark(**conn, l.mark.writer))
    return err;
  l.conn = std::move(*conn);
  return l.conn.get();
}

void pg_store::drop_if_broken(lane& l) {
  if (l.conn && l.conn->broken())
    l.conn.reset();
}

namespace {

using batch_key = std::vector<std::pair<std::string, int64_t>>;

// Names a batch by its items' ids and revisions: a retry sends the same.
batch_key key_of(const std::vector<checkpoint>& batch) {
  batch_key key;
  key.reserve(batch.size());
  for (auto& cp : batch)
    key.emplace_back(cp.op ? cp.op->id : std::string{}, cp.op ? cp.op->revision : 0);
  return key;
}

bool is_batch(const batch_key& key, const std::vector<checkpoint>& batch) {
  if (key.size() != batch.size())
    return false;
  for (size_t i = 0; i < key.size(); ++i) {
    auto& op = batch[i].op;
    if (!op || key[i].first != op->id || key[i].second != op->revision)
      return false;
  }
  return true;
}

} // namespace

pg_store::lane& pg_store::take_lane(const std::vector<checkpoint>& batch) {
  std::unique_lock guard{lanes_mtx_};
  lane* found = nullptr;
  lane_freed_.wait(guard, [&] {
    found = nullptr;
    for (auto& l : lanes_) {
      if (l->busy)
        continue;
      if (l->unsure && is_batch(l->unsure_batch, batch)) {
        found = l.get();
        return true;
      }
      if (!l->unsure && !found)
        found = l.get();
    }
    return found != nullptr;
  });
  found->busy = true;
  return *found;
}

void pg_store::give_back(lane& l) {
  {
    std::lock_guard guard{lanes_mtx_};
    l.busy = false;
  }
  lane_freed_.notify_all();
}

caf::error pg_store::not_joined() {
  return make_error(errc::invalid_state, "pg: lease: join first");
}

// -- writes -------------------------------------------------------------------

caf::expected<commit_result> pg_store::commit(const std::vector<checkpoint>& batch) {
  std::optional<commit_result> out;
  if (auto err = commit_then(batch, [&out](commit_result& res) { out = std::move(res); }))
    return err;
  return std::move(*out);
}

caf::error pg_store::commit_then(const std::vector<checkpoint>& batch, const durable_fn& durable) {
  std::shared_lock duty{duty_mtx_};
  auto& l = take_lane(batch);
  struct holder {
    pg_store& st;
    lane& l;
    ~holder() {
      st.give_back(l);
    }
  } held{*this, l};
  auto conn = connection(l);
  if (!conn)
    return std::move(conn.error());
  std::unique_lock order{order_mtx_, std::defer_lock};
  auto answer = [&](commit_result& res) {
    if (!order.owns_lock())
      order.lock();
    durable(res);
    return caf::none;
  };
  if (l.unsure) {
    // The last commit of this lane broke during COMMIT, and this is its
    // retry.
    auto known = pg_resolve(**conn, l.mark, *l.unsure);
    if (!known) {
      drop_if_broken(l);
      return std::move(known.error());
    }
    l.unsure.reset();
    if (*known)
      return answer(**known);
  }
  ++l.mark.token;
  // The first lane renews the lease with each commit (and the lease
  // calls run on it).
  auto res = pg_commit(**conn, batch, fence_ ? &*fence_ : nullptr, &l == lanes_.front().get(),
                       l.mark, l.unsure, order);
  if (l.unsure)
    l.unsure_batch = key_of(batch);
  drop_if_broken(l);
  if (!res)
    return std::move(res.error());
  return answer(*res);
}

caf::error pg_store::ping() {
  return on_writer(needs_join::no, [](pg_connection& c) -> caf::error {
    auto r = c.exec("SELECT 1", "ping");
    return r ? caf::none : std::move(r.error());
  });
}

caf::expected<admission_round> pg_store::admit(const admission_limits& limits, time_point now) {
  return on_writer(needs_join::no, [&](pg_connection& c) { return pg_admit(c, limits, now); });
}

// -- reads --------------------------------------------------------------------

caf::expected<std::optional<operation>> pg_store::load(const std::string& id) {
  return readers_->run([&](pg_connection& c) { return pg_reads::load(c, id); });
}

caf::expected<std::optional<operation>> pg_store::find_by_key(const std::string& key) {
  return readers_->run([&](pg_connection& c) { return pg_reads::find_by_key(c, key); });
}

caf::expected<std::vector<operation>> pg_store::load_active_page(
  const std::optional<active_position>& after, size_t limit) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::load_active_page(c, after, limit); });
}

caf::expected<operation_page> pg_store::list(const list_filter& filter) {
  return readers_->run([&](pg_connection& c) { return pg_reads::list(c, filter); });
}

caf::expected<std::vector<event>> pg_store::events_of(const std::string& operation_id,
                                                      int64_t after, size_t limit) {
  return readers_->run(
    [&](pg_connection& c) { return pg_reads::events_of(c, operation_id, after, limit); });
}

caf::expected<std::vector<event>> pg_store::events_after(int64_t after, size_t limit) {
  return readers_->run([&](pg_connection& c) { return pg_reads::events_after(c, after, limit); });
}

caf::expected<std::vector<schedule>> pg_store::load_schedules() {
  return readers_->run([](pg_connection& c) { return pg_reads::schedules(c, {}); });
}

caf::expected<std::optional<schedule>> pg_store::load_schedule(const std::string& id) {
  auto found = readers_->run([&](pg_connection& c) { return pg_reads::schedules(c, id); });
  if (!found)
    return std::move(found.error());
  if (found->empty())
    return std::optional<schedule>{};
  return std::optional<schedule>{std::move(found->front())};
}

caf::expected<int64_t> pg_store::last_seq() {
  return readers_->run([](pg_connection& c) { return pg_reads::last_seq(c); });
}

} // namespace stepwise
