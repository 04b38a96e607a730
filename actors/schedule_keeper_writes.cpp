// The schedule keeper's writes (through the commit writer, each checked
// against the revision it replaces) and its reads of the store.
#include "actors/schedule_keeper.hpp"
#include "actors/take.hpp"

#include "engine/errc.hpp"

namespace stepwise {

namespace {

void submit(keeper_ptr self, checkpoint::kind what, std::shared_ptr<const schedule> written,
            std::vector<event> events, schedule_write w) {
  auto& st = self->state;
  auto tag = ++st.next_tag;
  st.writes.emplace(tag, std::move(w));
  checkpoint cp;
  cp.what = what;
  cp.events = std::move(events);
  cp.sched = std::move(written);
  if (!st.rt->writer->submit(std::move(cp), self, tag)) {
    st.stopped = true;
    auto failed = std::move(st.writes.at(tag));
    st.writes.erase(tag);
    if (failed.done)
      failed.done(make_error(errc::shutting_down, "the engine is shutting down"));
    settle(self, failed.id);
  }
}

/// The store holds what the entry knows of `id` again: the write `w` is
/// done (with `err`).
void finish(keeper_ptr self, schedule_write& w, caf::error err) {
  if (w.done)
    w.done(std::move(err));
  settle(self, w.id);
}

/// The answer to the read of one schedule whose write met another
/// revision: was it ours after all (written, but answered as failed and
/// tried again), another process's, or gone?
void on_reread(keeper_ptr self, loaded_schedules& res) {
  auto& st = self->state;
  auto taken = take(st.rereads, res.only);
  if (!taken)
    return;
  auto& w = *taken;
  auto i = st.entries.find(w.id);
  if (i == st.entries.end())
    return;
  auto& e = i->second;
  if (res.err) {
    finish(self, w,
           make_error(errc::store_failure, "schedule '" + w.id
                                             + "' could not be read again after "
                                               "a conflicting write: "
                                             + message_of(res.err)));
    return;
  }
  if (res.all.empty()) {
    // Gone before its write is answered: the requests it held run after
    // (one may be a create that makes the entry anew, which this answer
    // must not drop).
    auto held = drop_entry(self, w.id);
    // A create refused with nothing stored was not written: this process's
    // writes were fenced (it lost its lease on a shared store).
    bool create = w.written && w.written->revision == 1;
    if (w.done)
      w.done(w.deleting ? caf::error{}
             : create
               ? make_error(errc::stale_revision, "schedule '" + w.id
                                                    + "' was not written: this process lost its "
                                                      "lease on the shared store; retry")
               : make_error(errc::not_found, "schedule '" + w.id + "' was deleted"));
    for (auto& f : held)
      f(); // they find no schedule
    return;
  }
  auto& found = res.all.front();
  if (!w.deleting && same_write(found, *w.written)) {
    e.s = found;
    finish(self, w, caf::none);
    return;
  }
  if (found.last_operation != e.s.last_operation)
    e.last = schedule_entry::last_op::unknown;
  e.s = std::move(found);
  finish(self, w,
         make_error(errc::stale_revision, "schedule '" + w.id
                                            + "' was changed meanwhile (by another process): "
                                              "read it again and retry"));
}

/// Takes what another process wrote (a shared store), for the schedules
/// with nothing in flight.
void merge(keeper_ptr self, std::vector<schedule>& all) {
  auto& st = self->state;
  std::unordered_map<std::string, schedule*> by_id;
  for (auto& s : all)
    by_id.emplace(s.id, &s);
  std::vector<std::string> gone;
  for (auto& [id, e] : st.entries) {
    if (e.busy || e.s.revision == 0 || by_id.count(id))
      continue;
    gone.push_back(id);
  }
  for (auto& id : gone)
    forget(self, id);
  for (auto& [id, s] : by_id) {
    auto& e = st.entries[id];
    if (e.busy || (e.s.revision >= s->revision && !e.queued))
      continue;
    if (e.s.revision < s->revision) {
      if (s->last_operation != e.s.last_operation)
        e.last = schedule_entry::last_op::unknown;
      e.s = std::move(*s);
    } else {
      // A queued fire waits for an operation that may run in another
      // process, which tells this one nothing when it ends: look again.
      e.last = schedule_entry::last_op::unknown;
      e.queued.reset();
    }
    look(self, id);
  }
}

} // namespace

std::vector<std::function<void()>> drop_entry(keeper_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.entries.find(id);
  if (i == st.entries.end())
    return {};
  auto held = std::move(i->second.held);
  st.entries.erase(i);
  st.due.remove(id);
  return held;
}

void forget(keeper_ptr self, const std::string& id) {
  for (auto& f : drop_entry(self, id))
    f(); // they find no schedule
}

void write(keeper_ptr self, const std::string& id, schedule next, std::vector<event> events,
           std::function<void(caf::error)> done) {
  auto& st = self->state;
  auto& e = st.entries.at(id);
  e.busy = true;
  next.revision = e.s.revision + 1;
  next.updated_at = st.rt->clk->now();
  auto written = std::make_shared<const schedule>(std::move(next));
  submit(self, checkpoint::kind::schedule, written, std::move(events),
         schedule_write{id, written, false, std::move(done)});
}

event schedule_change(keeper_ptr self, const std::string& id, const char* change,
                      const std::string& by) {
  event e;
  e.time = self->state.rt->clk->now();
  e.type = event_type::schedule_changed;
  // What changed, never the definition: its input may hold secrets.
  e.extra = {{"schedule", id}, {"change", change}};
  e.by = by;
  return e;
}

void erase(keeper_ptr self, const std::string& id, std::vector<event> events,
           std::function<void(caf::error)> done) {
  auto& e = self->state.entries.at(id);
  e.busy = true;
  auto gone = std::make_shared<schedule>(e.s);
  gone->revision += 1;
  submit(self, checkpoint::kind::schedule_delete, gone, std::move(events),
         schedule_write{id, gone, true, std::move(done)});
}

void on_written(keeper_ptr self, const commit_ack& ack) {
  auto& st = self->state;
  auto taken = take(st.writes, ack.tag);
  if (!taken)
    return;
  auto& w = *taken;
  if (ack.status != write_status::ok) {
    // Another revision is stored (another process wrote, or this write
    // was done but answered as failed and tried again): read it.
    auto id = w.id;
    st.rereads.emplace(id, std::move(w));
    self->send(st.rt->reader(), load_schedule_atom::value, id);
    return;
  }
  if (w.deleting) {
    if (w.done)
      w.done(caf::none);
    forget(self, w.id);
    return;
  }
  auto e = st.entries.find(w.id);
  if (e != st.entries.end())
    e->second.s = *w.written;
  finish(self, w, caf::none);
}

void on_loaded(keeper_ptr self, loaded_schedules& res) {
  auto& st = self->state;
  if (!res.only.empty()) {
    on_reread(self, res);
    return;
  }
  if (res.err) {
    if (!st.loaded)
      write_log(st.rt->cfg.log, log_level::warn,
                "schedules: could not be read (tried again): " + message_of(res.err));
    return;
  }
  if (st.loaded) {
    merge(self, res.all);
    return;
  }
  for (auto& s : res.all) {
    auto id = s.id;
    st.entries[id].s = std::move(s);
  }
  st.loaded = true;
  auto waiting = std::move(st.before_load);
  st.before_load.clear();
  for (auto& f : waiting)
    f();
  std::vector<std::string> ids;
  ids.reserve(st.entries.size());
  for (auto& kv : st.entries)
    ids.push_back(kv.first);
  for (auto& id : ids)
    look(self, id);
}

} // namespace stepwise
