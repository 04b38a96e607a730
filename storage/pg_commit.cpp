#include "storage/pg_commit.hpp"

#include <string_view>
#include <unordered_set>

#include "engine/errc.hpp"
#include "engine/child_notice.hpp"
#include "storage/codec.hpp"
#include "storage/op_row.hpp"
#include "storage/pg_columns.hpp"
#include "storage/pg_pipeline.hpp"
#include "storage/pg_statements.hpp"
#include "storage/schedule_row.hpp"

namespace stepwise {

namespace {

/// Items of a batch that one create and one update statement can write:
/// their ids are distinct, so the order among them does not matter.
struct segment {
  std::vector<size_t> creates;
  std::vector<size_t> updates;
};

// Splits `batch` where an id repeats: a later write of an operation must
// see the earlier one, so it goes to a later statement.
std::vector<segment> split(const std::vector<checkpoint>& batch) {
  std::vector<segment> out(1);
  std::unordered_set<std::string_view> ids;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sched)
      continue; // written on their own (send_schedule)
    auto& op = *batch[i].op;
    if (!ids.insert(op.id).second) {
      out.emplace_back();
      ids.clear();
      ids.insert(op.id);
    }
    auto& seg = out.back();
    (batch[i].what == checkpoint::kind::create ? seg.creates : seg.updates).push_back(i);
  }
  return out;
}

// Sends one multi-row statement for the items at `idx` (none when empty).
caf::error send_rows(pg_pipeline& pl, const std::vector<checkpoint>& batch,
                     const std::vector<size_t>& idx, checkpoint::kind what, const pg_fence* fence) {
  if (idx.empty())
    return caf::none;
  pg_op_columns cols{what};
  op_row_buffers buf;
  for (auto i : idx) {
    cols.add(checkpoint_row(batch[i], buf));
    if (what == checkpoint::kind::update)
      cols.add_command(batch[i].consumed_command);
  }
  auto* owner = fence != nullptr ? &fence->owner : nullptr;
  auto p = cols.params(owner);
  auto create = what == checkpoint::kind::create;
  if (owner != nullptr)
    return pl.send_prepared(create ? pg_stmt::create_many_owned : pg_stmt::update_many_owned, p);
  return pl.send_prepared(create ? pg_stmt::create_many : pg_stmt::update_many, p);
}

caf::error send_segment(pg_pipeline& pl, const std::vector<checkpoint>& batch, const segment& seg,
                        const pg_fence* fence) {
  if (auto err = send_rows(pl, batch, seg.creates, checkpoint::kind::create, fence))
    return err;
  return send_rows(pl, batch, seg.updates, checkpoint::kind::update, fence);
}

// Sends the statement that writes the schedule item `cp`: it returns a
// row when the revision check let it write.
caf::error send_schedule(pg_pipeline& pl, const checkpoint& cp) {
  auto& s = *cp.sched;
  pg_params p{3};
  p.add(s.id);
  p.add(s.revision);
  if (cp.what == checkpoint::kind::schedule_delete)
    return pl.send("DELETE FROM schedules WHERE id = $1 AND revision = $2 - 1 RETURNING 1", p);
  p.add(codec::encode_schedule(s));
  if (s.revision == 1)
    return pl.send("INSERT INTO schedules (id, revision, body) VALUES ($1, $2, $3) "
                   "ON CONFLICT DO NOTHING RETURNING 1",
                   p);
  return pl.send("UPDATE schedules SET revision = $2, body = $3 "
                 "WHERE id = $1 AND revision = $2 - 1 RETURNING 1",
                 p);
}

// Marks the items of `items` whose id the statement did not return.
void mark_missing(const pg_result& r, const std::vector<checkpoint>& batch,
                  const std::vector<size_t>& items, write_status why, commit_result& res) {
  std::unordered_set<std::string_view> written;
  for (int row = 0; row < r.rows(); ++row)
    written.insert(r.text(row, 0));
  for (auto i : items)
    if (written.count(batch[i].op->id) == 0)
      res.status[i] = why;
}

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

// Round trip 1: BEGIN, the lease renewal and the writes. Fills
// `res.status`; returns whether the lease (if any) was renewed.
caf::expected<bool> write_items(pg_connection& conn, const std::vector<checkpoint>& batch,
                                const pg_fence* fence, bool renew, commit_result& res) {
  auto segments = split(batch);
  pg_pipeline pl{conn};
  pg_params none;
  if (auto err = pl.start())
    return err;
  if (auto err = pl.send("BEGIN", none))
    return err;
  renew = renew && fence != nullptr;
  if (renew) {
    auto p = fence->lease_params();
    if (auto err = pl.send_prepared(pg_stmt::renew_owner, p))
      return err;
  }
  for (auto& seg : segments)
    if (auto err = send_segment(pl, batch, seg, fence))
      return err;
  std::vector<size_t> schedules;
  for (size_t i = 0; i < batch.size(); ++i)
    if (batch[i].sched) {
      schedules.push_back(i);
      if (auto err = send_schedule(pl, batch[i]))
        return err;
    }
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
  if (renew) {
    if (auto r = pl.result("renew lease"))
      renewed = r->rows() == 1;
    else
      note(std::move(r.error()));
  }
  auto read = [&](const std::vector<size_t>& items, const char* what, write_status why) {
    if (items.empty())
      return;
    if (auto r = pl.result(what))
      mark_missing(*r, batch, items, why, res);
    else
      note(std::move(r.error()));
  };
  for (auto& seg : segments) {
    read(seg.creates, "create", write_status::duplicate_key);
    read(seg.updates, "update", write_status::stale_revision);
  }
  for (auto i : schedules) {
    if (auto r = pl.result("write schedule")) {
      if (r->rows() == 0)
        res.status[i] = batch[i].what == checkpoint::kind::schedule && batch[i].sched->revision == 1
                          ? write_status::duplicate_key
                          : write_status::stale_revision;
    } else {
      note(std::move(r.error()));
    }
  }
  if (auto err = pl.await_sync())
    note(std::move(err));
  if (first)
    return first;
  return renewed;
}

// Round trip 2: the events of the written items, the commit's mark, then
// COMMIT.
caf::error append_and_commit(pg_connection& conn, const std::vector<checkpoint>& batch,
                             const pg_commit_mark& mark, const pg_fence* fence,
                             commit_result& res) {
  pg_event_columns cols;
  std::string extra;
  // The stored commands the written items carried out: gone with them.
  std::string consumed;
  // Children that ended: their parents' processes hear of it at the commit.
  pg_array ended{pg_array::type::text};
  for (size_t i = 0; i < batch.size(); ++i)
    if (res.status[i] == write_status::ok) {
      for (auto& ev : batch[i].events) {
        cols.add(encode_event_row(ev, extra));
        res.events.push_back(ev);
      }
      if (batch[i].consumed_command != 0)
        consumed += (consumed.empty() ? "{" : ",") + std::to_string(batch[i].consumed_command);
      if (auto& op = batch[i].op; op && !op->parent_id.empty() && is_terminal(op->state))
        ended.add(child_ended_payload(fence != nullptr ? fence->owner : std::string{}, *op));
    }
  pg_pipeline pl{conn};
  pg_params none;
  if (auto err = pl.start())
    return err;
  if (cols.size() > 0) {
    auto p = cols.params();
    if (auto err = pl.send_prepared(pg_stmt::append_events, p))
      return err;
    // Every process's event feed hears of them at the commit (its own
    // too: the feed orders what all processes wrote).
    pg_params n{1};
    n.add(static_cast<int64_t>(cols.size()));
    if (auto err = pl.send("SELECT pg_notify('stepwise_events', (last_seq - $1 + 1) || ' ' || "
                           "last_seq) FROM event_counter WHERE id = 1",
                           n))
      return err;
  }
  if (!consumed.empty()) {
    // The processes that stored them answer their clients once told.
    pg_params p{2};
    p.add(consumed + "}");
    p.add("applied " + consumed.substr(1));
    if (auto err =
          pl.send("WITH d AS (DELETE FROM operation_commands "
                  "WHERE seq = ANY($1::BIGINT[])) SELECT pg_notify('stepwise_applied', $2)",
                  p))
      return err;
  }
  if (ended.size() > 0) {
    pg_params p{1};
    p.add_binary(ended.bytes());
    if (auto err = pl.send("SELECT count(pg_notify('stepwise_child_ended', x)) "
                           "FROM unnest($1::TEXT[]) AS x",
                           p))
      return err;
  }
  // Inputs a retry patched (`patches_input`), with their updates.
  std::vector<size_t> patched;
  for (size_t i = 0; i < batch.size(); ++i)
    if (res.status[i] == write_status::ok && patches_input(batch[i])) {
      auto& op = *batch[i].op;
      std::string input = "{}";
      if (op.input) {
        input.clear();
        codec::encode_object(input, *op.input);
      }
      pg_params p{2};
      p.add(input);
      p.add(op.id);
      if (auto err = pl.send("UPDATE operations SET input = $1 WHERE id = $2", p))
        return err;
      patched.push_back(i);
    }
  // Schedules written: the other processes' keepers read them at once.
  bool schedules = false;
  for (size_t i = 0; i < batch.size() && fence != nullptr; ++i)
    schedules = schedules || (batch[i].sched && res.status[i] == write_status::ok);
  if (schedules) {
    pg_params p{1};
    p.add(fence->owner);
    if (auto err = pl.send("SELECT pg_notify('stepwise_schedules', $1)", p))
      return err;
  }
  pg_params mp{2};
  mp.add(mark.writer);
  mp.add(mark.token);
  if (auto err = pl.send_prepared(pg_stmt::mark_commit, mp))
    return err;
  if (auto err = pl.send("COMMIT", none))
    return err;
  if (auto err = pl.sync())
    return err;
  caf::error first;
  if (cols.size() > 0) {
    if (auto r = pl.result("append events")) {
      auto seq = r->int64(0, 0) - cols.size();
      for (auto& ev : res.events)
        ev.seq = ++seq;
    } else {
      first = std::move(r.error());
    }
    if (auto r = pl.result("tell of the events"); !r && !first)
      first = std::move(r.error());
  }
  if (!consumed.empty())
    if (auto r = pl.result("drop carried out commands"); !r && !first)
      first = std::move(r.error());
  if (ended.size() > 0)
    if (auto r = pl.result("tell the parents of ended children"); !r && !first)
      first = std::move(r.error());
  for (size_t n = 0; n < patched.size(); ++n)
    if (auto r = pl.result("write a patched input"); !r && !first)
      first = std::move(r.error());
  if (schedules)
    if (auto r = pl.result("tell of the schedules"); !r && !first)
      first = std::move(r.error());
  if (auto r = pl.result("commit mark"); !r && !first)
    first = std::move(r.error());
  if (auto r = pl.result("commit"); !r && !first)
    first = std::move(r.error());
  if (auto err = pl.await_sync(); err && !first)
    first = std::move(err);
  return first;
}

} // namespace

caf::error pg_fence::lost() const {
  return make_error(errc::stale_revision,
                    "pg: lease lost: owner '" + owner + "' expired or was taken over");
}

caf::expected<commit_result> pg_commit(pg_connection& conn, const std::vector<checkpoint>& batch,
                                       const pg_fence* fence, bool renew,
                                       const pg_commit_mark& mark,
                                       std::optional<commit_result>& unsure,
                                       std::unique_lock<std::mutex>& order) {
  // A checkpoint without an operation is a caller bug: refused before
  // anything is sent.
  for (size_t i = 0; i < batch.size(); ++i)
    if (!batch[i].op && !batch[i].sched)
      return make_error(errc::invalid_argument, "commit failed: checkpoint " + std::to_string(i)
                                                  + " has no operation and no schedule");
  commit_result res;
  res.status.assign(batch.size(), write_status::ok);
  res.renewed_lease = renew && fence != nullptr;
  if (batch.empty() && !res.renewed_lease) {
    order.lock();
    return res;
  }
  auto renewed = write_items(conn, batch, fence, renew, res);
  if (!renewed)
    return roll_back(conn, std::move(renewed.error()));
  if (!*renewed)
    return roll_back(conn, fence->lost());
  // The events take their numbers from here on: one transaction of this
  // store at a time, so that they are answered in the order of their seqs.
  order.lock();
  if (auto err = append_and_commit(conn, batch, mark, fence, res)) {
    // The server may have committed before the connection broke: keep
    // the answer for `pg_resolve`.
    if (conn.broken()) {
      for (auto& ev : res.events)
        ev.seq = 0;
      unsure = std::move(res);
      return make_error(errc::store_failure, "pg: connection lost during COMMIT (whether it was "
                                             "written is read back once connected): "
                                               + message_of(err));
    }
    // A failed COMMIT ended the transaction already; after an earlier
    // failure the ROLLBACK ends it.
    return roll_back(conn, std::move(err));
  }
  return res;
}

caf::expected<std::optional<commit_result>> pg_resolve(pg_connection& conn,
                                                       const pg_commit_mark& mark,
                                                       commit_result& unsure) {
  pg_params p{1};
  p.add(mark.writer);
  // FOR UPDATE waits for a transaction of the broken connection that the
  // server has not ended yet: what is read then is final.
  auto r = conn.exec_prepared(pg_stmt::read_mark, p, "read commit mark");
  if (!r)
    return std::move(r.error());
  if (r->rows() == 0 || r->int64(0, 0) != mark.token)
    return std::optional<commit_result>{};
  auto seq = r->int64(0, 1) - static_cast<int64_t>(unsure.events.size());
  for (auto& ev : unsure.events)
    ev.seq = ++seq;
  // The lease was renewed when that transaction ran, not by this read: the
  // writer would count it from this call's start, later than the store's
  // expiry (the simulation found steps begun after the lease expired).
  unsure.renewed_lease = false;
  return std::optional<commit_result>{std::move(unsure)};
}

} // namespace stepwise
