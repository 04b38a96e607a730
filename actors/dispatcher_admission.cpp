// Admission in the dispatcher: each round (actors/admission_keeper.hpp
// says who asks for them) starts the admitted operations it drives,
// answers the creates that waited for a round, and gives each workflow's
// figures.
#include "actors/dispatcher.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace stepwise {

namespace {

/// Applies what a round said of an operation (`u`) to `op`.
void apply(operation& op, const admission_update& u) {
  op.admission = u.admission;
  op.blocked_by = u.blocked_by;
}

/// Answers a start written queued with the operation as stored now.
/// Removed since (it ended, and retention took it): as created.
void answer_from_store(dispatcher_ptr self, create_answer rp, op_snapshot created) {
  self->request(self->state.rt->reader(), caf::infinite, load_atom::value, created->id)
    .then(
      [=](maybe_op& res) mutable {
        if (res.err)
          rp.deliver(std::move(res.err));
        else
          rp.deliver(
            start_result{self->state.rt->present(res.value ? *res.value : *created), true});
      },
      [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
}

/// Answers the starts written queued before `round` ran: admitted, or
/// waiting for what the round names. A create whose actor has not said yet
/// that it is written keeps what the round said of it, if anything: its
/// report may come after the round (the writer tells the actor, which
/// tells the dispatcher), and the next round may not name it again.
void answer_queued(dispatcher_ptr self, const admission_round& round) {
  auto& st = self->state;
  if (st.queued_answers.empty() && st.creates.empty())
    return;
  // By id: a fan-out queues thousands of children at once, and the round
  // names each of them.
  std::unordered_map<std::string_view, const admission_update*> updates;
  for (auto& u : round.updates)
    updates[u.id] = &u;
  std::unordered_set<std::string_view> startable{round.startable.begin(), round.startable.end()};
  auto said = [&](const std::string& id, const operation* op) -> std::optional<admission_update> {
    admission_update u;
    bool named = false;
    if (op) {
      u.admission = op->admission;
      u.blocked_by = op->blocked_by;
    }
    if (auto i = updates.find(id); i != updates.end()) {
      u = *i->second;
      named = true;
    }
    if (startable.count(id)) {
      u.admission = admission::admitted;
      named = true;
    }
    if (!named)
      return std::nullopt;
    return u;
  };
  for (auto& kv : st.creates)
    if (auto u = said(kv.second.id, nullptr))
      kv.second.seen = std::move(u);
  for (auto& pc : st.queued_answers) {
    auto op = *pc.op;
    if (auto u = said(op.id, &op)) {
      apply(op, *u);
    } else if (st.rt->lease) {
      // On a shared store another process's round may have named it first
      // (this one saw no change): what it waits for is in the store.
      answer_from_store(self, std::move(pc.rp), pc.op);
      continue;
    }
    pc.rp.deliver(start_result{st.rt->present(op), true});
  }
  st.queued_answers.clear();
}

/// Starts admitted operation `id` from its create, still in memory,
/// instead of reading it back: the round read the revision the create
/// wrote, so the stored operation is that one (rounds write only the
/// admission columns, which are set here as the round set them). Returns
/// false when it is not in memory or changed since (a signal, say).
bool start_from_create(dispatcher_ptr self, const std::string& id, int64_t revision) {
  auto& st = self->state;
  auto i = st.queued_ops.find(id);
  if (i == st.queued_ops.end() || i->second->revision != revision)
    return false;
  auto op = *i->second;
  forget_sleeper(self, id);
  op.admission = admission::admitted;
  op.blocked_by.clear();
  spawn_operation(self, std::move(op), {}, op_start::resume);
  return true;
}

} // namespace

// Starts the admitted operations this process drives.
void on_round(dispatcher_ptr self, admission_round& round) {
  auto& st = self->state;
  answer_queued(self, round);
  {
    // Workflows the round found nothing of show zeros, not stale figures.
    std::lock_guard<std::mutex> guard{st.rt->counts_mtx};
    st.rt->counts.clear();
    for (auto& wf : *st.rt->admitted())
      st.rt->counts[wf] = round.counts[wf];
  }
  for (size_t k = 0; k < round.startable.size(); ++k) {
    auto& id = round.startable[k];
    if (auto i = st.live.find(id); i != st.live.end())
      self->send(i->second, admitted_atom::value, round.startable_revisions[k]);
    else if (st.sleepers.contains(id) && !start_from_create(self, id, round.startable_revisions[k]))
      wake(self, id); // loaded admitted: it starts
    // Else another process drives it (its own rounds start it), or it is
    // between two actors here: the next round names it again.
  }
}

void request_admission(dispatcher_ptr self) {
  if (!self->state.rt->admitted()->empty())
    self->state.rt->writer->request_admission();
}

} // namespace stepwise
