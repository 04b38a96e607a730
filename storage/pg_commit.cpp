#include "storage/pg_commit.hpp"

#include "engine/errc.hpp"
#include "storage/codec.hpp"
#include "storage/pg_pipeline.hpp"
#include "storage/pg_statements.hpp"

namespace stepwise {

namespace {

void add_create_params(pg_params& p, const operation& op) {
  static const boost::json::object empty;
  p.add(op.id);
  p.add(op.workflow);
  p.add(op.workflow_version);
  p.add(to_string(op.state));
  p.add(codec::encode_object(op.input ? *op.input : empty));
  p.add(codec::encode_object(op.data));
  p.add(codec::encode_steps(op.steps));
  p.add(op.error);
  p.add(to_micros(op.created_at));
  p.add(to_micros(op.updated_at));
  p.add(codec::encode_time(op.deadline));
  p.add_or_null(op.idempotency_key);
  p.add(op.request_hash);
  p.add(op.revision);
  p.add(codec::encode_time(op.wake_at));
}

void add_update_params(pg_params& p, const operation& op) {
  p.add(op.id);
  p.add(op.revision - 1);
  p.add(to_string(op.state));
  p.add(codec::encode_object(op.data));
  p.add(codec::encode_steps(op.steps));
  p.add(op.error);
  p.add(to_micros(op.updated_at));
  p.add(codec::encode_time(op.deadline));
  p.add(op.revision);
  p.add(codec::encode_time(op.wake_at));
}

caf::error send_item(pg_pipeline& pl, const checkpoint& item,
                     const pg_fence* fence) {
  pg_params p{16};
  if (item.what == checkpoint::kind::create) {
    add_create_params(p, *item.op);
    if (fence == nullptr)
      return pl.send_prepared(pg_stmt::create, p);
    p.add(fence->owner);
    return pl.send_prepared(pg_stmt::create_owned, p);
  }
  add_update_params(p, *item.op);
  if (fence == nullptr)
    return pl.send_prepared(pg_stmt::update, p);
  p.add(fence->owner);
  return pl.send_prepared(pg_stmt::update_owned, p);
}

/// The events of the written items as the array parameters of
/// `append_events`.
struct event_arrays {
  pg_array time, op, type, step, attempt, state, error, extra;
  int64_t count = 0;

  void add(const event& ev) {
    time.add(to_micros(ev.time));
    op.add(ev.operation_id);
    type.add(to_string(ev.type));
    step.add(ev.step);
    attempt.add(static_cast<int64_t>(ev.attempt));
    state.add(ev.state);
    error.add(ev.error);
    if (ev.extra.empty())
      extra.add_null();
    else
      extra.add(codec::encode_object(ev.extra));
    ++count;
  }

  pg_params params() const {
    pg_params p{9};
    p.add(count);
    for (auto* a : {&time, &op, &type, &step, &attempt, &state, &error, &extra})
      p.add(a->str());
    return p;
  }
};

// Ends the transaction without writing; `cause` is what the caller reports.
caf::error roll_back(pg_connection& conn, caf::error cause) {
  if (conn.broken())
    return cause;
  pg_pipeline pl{conn};
  pg_params none;
  auto err = pl.start();
  if (!err)
    err = pl.send("ROLLBACK", none);
  if (!err)
    err = pl.sync();
  if (!err) {
    auto r = pl.result("rollback");
    err = r ? pl.await_sync() : std::move(r.error());
  }
  if (err)
    conn.poison();
  return cause;
}

// Round trip 1: BEGIN, the lease renewal and one statement per item.
// Fills `res.status`; returns whether the lease (if any) was renewed.
caf::expected<bool> write_items(pg_connection& conn,
                                const std::vector<checkpoint>& batch,
                                const pg_fence* fence, commit_result& res) {
  pg_pipeline pl{conn};
  pg_params none;
  if (auto err = pl.start())
    return err;
  if (auto err = pl.send("BEGIN", none))
    return err;
  if (fence != nullptr) {
    pg_params p{2};
    p.add(fence->owner);
    p.add(static_cast<int64_t>(fence->ttl.count()));
    if (auto err = pl.send_prepared(pg_stmt::renew_owner, p))
      return err;
  }
  for (auto& item : batch)
    if (auto err = send_item(pl, item, fence))
      return err;
  if (auto err = pl.sync())
    return err;
  // Read every result even after an error: leaving pipeline mode needs
  // them consumed, and the first error is the one worth reporting.
  caf::error first;
  auto note = [&first](caf::error err) {
    if (!first)
      first = std::move(err);
  };
  if (auto r = pl.result("begin"); !r)
    note(std::move(r.error()));
  bool renewed = true;
  if (fence != nullptr) {
    if (auto r = pl.result("renew lease"))
      renewed = r->rows() == 1;
    else
      note(std::move(r.error()));
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    auto create = batch[i].what == checkpoint::kind::create;
    auto r = pl.result(create ? "create" : "update");
    if (!r)
      note(std::move(r.error()));
    else if (r->rows() == 0)
      res.status[i] = create ? write_status::duplicate_key
                             : write_status::stale_revision;
  }
  if (auto err = pl.await_sync())
    note(std::move(err));
  if (first)
    return first;
  return renewed;
}

// Round trip 2: the events of the written items, then COMMIT.
caf::error append_and_commit(pg_connection& conn,
                             const std::vector<checkpoint>& batch,
                             commit_result& res) {
  event_arrays arrays;
  for (size_t i = 0; i < batch.size(); ++i)
    if (res.status[i] == write_status::ok)
      for (auto& ev : batch[i].events) {
        arrays.add(ev);
        res.events.push_back(ev);
      }
  pg_pipeline pl{conn};
  pg_params none;
  if (auto err = pl.start())
    return err;
  if (arrays.count > 0) {
    auto p = arrays.params();
    if (auto err = pl.send_prepared(pg_stmt::append_events, p))
      return err;
  }
  if (auto err = pl.send("COMMIT", none))
    return err;
  if (auto err = pl.sync())
    return err;
  caf::error first;
  if (arrays.count > 0) {
    if (auto r = pl.result("append events")) {
      auto seq = r->int64(0, 0) - arrays.count;
      for (auto& ev : res.events)
        ev.seq = ++seq;
    } else {
      first = std::move(r.error());
    }
  }
  if (auto r = pl.result("commit"); !r && !first)
    first = std::move(r.error());
  if (auto err = pl.await_sync(); err && !first)
    first = std::move(err);
  return first;
}

} // namespace

caf::expected<commit_result> pg_commit(pg_connection& conn,
                                       const std::vector<checkpoint>& batch,
                                       const pg_fence* fence) {
  // A checkpoint without an operation is a caller bug: refused before
  // anything is sent.
  for (size_t i = 0; i < batch.size(); ++i)
    if (!batch[i].op)
      return make_error(errc::invalid_argument,
                        "commit failed: checkpoint " + std::to_string(i)
                          + " has no operation");
  commit_result res;
  res.status.assign(batch.size(), write_status::ok);
  if (batch.empty() && fence == nullptr)
    return res;
  auto renewed = write_items(conn, batch, fence, res);
  if (!renewed)
    return roll_back(conn, std::move(renewed.error()));
  if (!*renewed)
    return roll_back(conn, make_error(errc::stale_revision,
                                      "pg: lease lost: owner '" + fence->owner
                                        + "' expired or was taken over"));
  if (auto err = append_and_commit(conn, batch, res)) {
    // The server may have committed before the connection broke: say so,
    // the engine's retry will then meet stale revisions.
    if (conn.broken())
      return make_error(errc::store_failure,
                        "pg: commit outcome unknown (connection lost): "
                          + message_of(err));
    // A failed COMMIT ended the transaction already; after an earlier
    // failure the ROLLBACK ends it.
    return roll_back(conn, std::move(err));
  }
  return res;
}

} // namespace stepwise
