// An operation's create: the actor exists from the create on. The
// dispatcher checks the request (workflow, key, room in the create window),
// names the operation and spawns this actor; the actor makes the operation
// (its first transition), writes its create checkpoint and tells the
// dispatcher how that went (`created_atom`), which answers the asker. Once
// written, the actor carries on as after any commit: the create's action
// (run the first step, or wait for admission) runs.
//
// A taken idempotency key: the same request gets the operation that holds
// the key, a different one a conflict; the actor reads it and quits, its
// own operation never having existed.
#include "actors/operation_parts.hpp"

#include "actors/messages.hpp"
#include "engine/errc.hpp"
#include "engine/new_operation.hpp"

namespace stepwise::op {

namespace {

void report(self_ptr self, create_report::outcome what, op_snapshot op, caf::error err = {},
            uint64_t epoch = 0) {
  auto& st = self->state;
  self->send(st.dispatcher, created_atom::value, st.creating->tag,
             create_report{what, std::move(op), std::move(err), epoch});
}

/// Nothing was written: says why and quits.
void not_created(self_ptr self, caf::error err) {
  report(self, create_report::outcome::failed, nullptr, std::move(err));
  self->quit();
}

/// Hands the create to the writer; returns false when it has stopped.
bool write(self_ptr self, std::vector<event> events, next_action act) {
  auto& st = self->state;
  st.commit.begin(std::make_shared<const operation>(st.op), act);
  checkpoint cp{checkpoint::kind::create, st.commit.in_flight, std::move(events)};
  return st.rt->writer->submit(std::move(cp), commit_ack_receiver{self}, st.work.generation());
}

caf::error shutting_down() {
  return make_error(errc::shutting_down, "the engine is shutting down");
}

/// What the read for a replay found (`found`) answers the create.
void replayed(self_ptr self, std::optional<operation>& found) {
  auto& st = self->state;
  auto& order = *st.creating;
  auto& key = st.op.idempotency_key;
  if (!found && !order.again) {
    // Retention removed the operation that held the key (it had ended)
    // between the write and this read: the key is free, and the create
    // is written again, once, as if it had come a moment later.
    if (st.rt->draining.load(std::memory_order_relaxed)) {
      not_created(self, shutting_down());
      return;
    }
    order.again = true;
    if (!write(self, order.events, st.commit.then))
      not_created(self, shutting_down());
    return;
  }
  if (!found) {
    not_created(self,
                make_error(errc::store_failure, "idempotency key '" + key
                                                  + "' is taken but its operation was not found"));
    return;
  }
  if (found->request_hash != st.op.request_hash) {
    not_created(self,
                make_error(errc::idempotency_conflict,
                           "idempotency key '" + key + "' was used with a different request"));
    return;
  }
  report(self, create_report::outcome::replayed,
         std::make_shared<const operation>(std::move(*found)));
  self->quit();
}

/// The create's idempotency key is taken: reads what holds it.
void replay(self_ptr self) {
  auto& st = self->state;
  if (!st.creating->read_replay) {
    report(self, create_report::outcome::replayed, nullptr);
    self->quit();
    return;
  }
  self->request(st.rt->reader(), caf::infinite, load_key_atom::value, st.op.idempotency_key)
    .then(
      [=](maybe_op& res) {
        if (res.err)
          not_created(self, std::move(res.err));
        else
          replayed(self, res.value);
      },
      [=](caf::error& err) { not_created(self, std::move(err)); });
}

/// Makes the operation `creating` orders and hands its create to the
/// writer, or says why not.
void begin_create(self_ptr self) {
  auto& st = self->state;
  // The drain may have begun since the dispatcher took the start: checked
  // again where the create is written.
  if (st.rt->draining.load(std::memory_order_relaxed)) {
    not_created(self, draining_refusal());
    return;
  }
  auto& order = *st.creating;
  // As of when the dispatcher took it: starts are made in the order taken.
  auto now = order.at;
  st.op = new_operation(order.req, *st.wf, order.id, now);
  st.op.key = order.key;
  st.rng.seed(static_cast<uint32_t>(std::hash<std::string>{}(st.op.id) ^ st.rt->cfg.seed));
  if (auto err = seal_input(st.op, *st.wf, st.rt->cfg.secret_keys.get())) {
    not_created(self, std::move(err));
    return;
  }
  std::vector<event> events;
  note_fire(st.op, order.req, now, events);
  auto act = st.rt->takes_part(*st.wf) ? progress::create_queued(st.op, now, events)
                                       : progress::create(st.op, *st.wf, now, events);
  stamp_by(events, order.req.by);
  // Only a create with a key may be written again (`replayed`).
  if (!st.op.idempotency_key.empty())
    order.events = events;
  if (!write(self, std::move(events), act))
    not_created(self, shutting_down());
}

} // namespace

bool created(self_ptr self, const commit_ack& ack) {
  auto& st = self->state;
  auto status = ack.status;
  if (status == write_status::ok) {
    st.rt->stats.operations_started.fetch_add(1, std::memory_order_relaxed);
    // Its steps may begin while the lease it was written under lasts: one
    // lost since this actor began may have come before the write.
    st.lease_epoch = ack.epoch;
    report(self, create_report::outcome::written, st.commit.in_flight, {}, ack.epoch);
    st.creating.reset();
    return true;
  }
  // Not written: the pipeline forgets it; the create may be written again.
  st.commit.in_flight = nullptr;
  if (status == write_status::duplicate_key && st.op.idempotency_key.empty())
    // No key to be taken: the id was. Answering with the operation of that
    // id would hand the asker someone else's operation.
    not_created(self, make_error(errc::store_failure, "create was not written: operation id '"
                                                        + st.op.id + "' is taken"));
  else if (status == write_status::duplicate_key)
    replay(self);
  else
    not_created(self, make_error(errc::store_failure, "create was not written"));
  return false;
}

} // namespace stepwise::op

namespace stepwise {

operation_actor::behavior_type create_operation(op::self_ptr self, runtime_ptr rt,
                                                internal_dispatcher_actor dispatcher,
                                                create_order order) {
  auto& st = self->state;
  op::take_up(self, std::move(rt), std::move(dispatcher), order.wf);
  st.creating = std::move(order);
  op::begin_create(self);
  // Handed to the writer (or answered): the writer's backlog counts it now.
  st.rt->creates_in_hand.fetch_sub(1, std::memory_order_relaxed);
  return op::lifecycle(self);
}

} // namespace stepwise
