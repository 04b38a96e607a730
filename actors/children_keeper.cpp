#include "actors/children_keeper.hpp"
#include "actors/take.hpp"

#include <algorithm>

#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

namespace {

using children_self = children_keeper_actor::stateful_pointer<children_keeper_state>;

bool due(const child_watch& w) {
  return w.seen >= w.need;
}

/// Enough of the parent's children ended: it looks at them again.
void nudge(children_self self, const std::string& parent) {
  auto& st = self->state;
  auto i = st.watches.find(parent);
  if (i == st.watches.end())
    return;
  auto seq = i->second.seq;
  st.watches.erase(i);
  self->send(st.dispatcher, children_nudge_atom::value, parent, seq);
}

/// Lists the children of `parent` (canceled) to cancel them, but for those
/// of the steps whose policy is to abandon them.
void cancel_children(children_self self, const operation& parent) {
  auto& st = self->state;
  std::vector<std::string> abandoned;
  if (auto wf = st.rt->workflows.find(parent.workflow, parent.workflow_version))
    for (auto& def : wf->steps())
      if (def.children_on_cancel == child_policy::abandon)
        abandoned.push_back(def.name);
  st.cancels[parent.id] = std::move(abandoned);
  self->send(st.rt->reader(), children_atom::value, parent.id, uint64_t{0},
             children_read_receiver{self});
}

void on_watch(children_self self, const std::string& parent, children_watch& w) {
  auto& st = self->state;
  auto& watch = st.watches[parent];
  watch = child_watch{};
  watch.seq = w.seq;
  watch.of_step = w.of_step;
  self->send(st.rt->reader(), children_atom::value, parent, w.seq, std::move(w.reply_to));
}

void on_arm(children_self self, const std::string& parent, uint64_t seq, uint64_t need,
            bool fail_fast) {
  auto& st = self->state;
  auto i = st.watches.find(parent);
  if (i == st.watches.end() || i->second.seq != seq)
    return;
  i->second.need = need;
  i->second.fail_fast = fail_fast;
  if (due(i->second))
    nudge(self, parent);
}

/// The children of a canceled parent, listed: each is canceled like a
/// client would, and nobody waits for the answer (a child that ended
/// meanwhile refuses, and that is all).
void on_listed(children_self self, children_read& read) {
  auto& st = self->state;
  auto abandoned = take(st.cancels, read.parent_id);
  if (!abandoned)
    return;
  if (read.err) {
    write_log(st.rt->cfg.log, log_level::warn,
              "operation " + read.parent_id
                + " was canceled, but its children could not be listed to cancel them: "
                + message_of(read.err));
    return;
  }
  for (auto& c : read.children)
    if (!is_terminal(c.state)
        && std::find(abandoned->begin(), abandoned->end(), c.step) == abandoned->end())
      caf::anon_send(st.dispatcher, command_atom::value, c.id,
                     command_request::cancel().asked_by("parent:" + read.parent_id));
}

/// A child of `parent` ended in `state` (its key `child_key`): the
/// parent's wait, if this process has one open, counts it.
void count_end(children_self self, const std::string& parent, op_state state,
               const std::string& child_key) {
  auto& st = self->state;
  auto i = st.watches.find(parent);
  if (i == st.watches.end())
    return;
  auto& w = i->second;
  if (!w.of_step.empty()) {
    auto slot = parse_child_key(child_key);
    if (!slot || slot->step != w.of_step)
      return;
  }
  w.seen += 1;
  if (due(w) || (w.fail_fast && state != op_state::succeeded))
    nudge(self, parent);
}

/// An operation ended (`snap`): its parent's wait counts it; its own
/// children are canceled if it was.
void on_ended(children_self self, const operation& snap) {
  auto& st = self->state;
  if (!is_terminal(snap.state))
    return;
  st.watches.erase(snap.id);
  if (snap.state == op_state::canceled)
    cancel_children(self, snap);
  if (!snap.parent_id.empty())
    count_end(self, snap.parent_id, snap.state, snap.idempotency_key);
}

/// Parents of operations a recovery found: children whose parent was
/// canceled before they were (a crash in between) are canceled now. One
/// read per parent, not per child: a fan-out has few parents. A read that
/// fails leaves the children running, as an abandon would.
void on_recovered(children_self self, const std::vector<std::string>& parents) {
  for (auto& parent : parents)
    self->request(self->state.rt->reader(), caf::infinite, load_atom::value, parent)
      .then(
        [=](maybe_op& res) {
          if (res.value && res.value->state == op_state::canceled)
            cancel_children(self, *res.value);
        },
        [=](caf::error& err) {
          write_log(self->state.rt->cfg.log, log_level::warn,
                    "recovery: cannot read operation " + parent
                      + " to see whether its children must be canceled: " + message_of(err));
        });
}

} // namespace

children_keeper_actor::behavior_type children_keeper(children_self self, runtime_ptr rt,
                                                     internal_dispatcher_actor dispatcher) {
  self->state.rt = std::move(rt);
  self->state.dispatcher = std::move(dispatcher);
  return {
    // A parent's children wait opens, arms, closes.
    [=](children_watch_atom, const std::string& parent, children_watch& w) {
      on_watch(self, parent, w);
    },
    [=](children_arm_atom, const std::string& parent, uint64_t seq, uint64_t need, bool fail_fast) {
      on_arm(self, parent, seq, need, fail_fast);
    },
    [=](children_unwatch_atom, const std::string& parent) { self->state.watches.erase(parent); },
    // A reader's list of a canceled parent's children.
    [=](children_read& read) { on_listed(self, read); },
    // The dispatcher: an operation ended; the parents of recovered children.
    [=](finished_atom, const op_snapshot& snap) {
      if (snap)
        on_ended(self, *snap);
    },
    [=](recover_atom, const std::vector<std::string>& parents) { on_recovered(self, parents); },
    // A count, not a look at the store: a nudge makes the parent read its
    // children (a count off by one only makes that read early).
    [=](child_ended_atom, const std::string& parent, uint8_t state, const std::string& key) {
      count_end(self, parent, static_cast<op_state>(state), key);
    },
  };
}

} // namespace stepwise
