// The requests of clients about schedules (engine/schedule_requests.hpp).
#include <algorithm>
#include <functional>

#include "actors/schedule_keeper.hpp"
#include "engine/errc.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

caf::error no_schedule(const std::string& id) {
  return make_error(errc::not_found, "no schedule with id '" + id + "'");
}

/// Checks a definition a client sent (the fields, then the workflow) and
/// seals the input's values at the workflow's secret paths: a schedule's
/// input is stored as an operation's is.
caf::error check_request(keeper_ptr self, schedule& s) {
  if (auto err = check_schedule(s))
    return err;
  auto wf = self->state.rt->workflows.find(s.workflow, s.version);
  if (!wf) {
    std::string what = "workflow: unknown workflow '" + s.workflow + "'";
    if (s.version)
      what += " version " + std::to_string(*s.version);
    return make_error(errc::unknown_workflow, what);
  }
  return seal_paths(s.input, wf->secrets(), self->state.rt->cfg.secret_keys.get(),
                    sealed_owner(s.id));
}

/// Returns whether `stored` has the definition `sent`, whose input is
/// sealed anew (sealing is not deterministic: the inputs are compared
/// opened).
bool same_as_stored(keeper_ptr self, const schedule& stored, const schedule& sent) {
  auto keys = self->state.rt->cfg.secret_keys.get();
  auto owner = sealed_owner(stored.id);
  auto a = open_all(std::make_shared<const boost::json::object>(stored.input), keys, owner);
  auto b = open_all(std::make_shared<const boost::json::object>(sent.input), keys, owner);
  if (!a || !b)
    return false;
  auto x = stored, y = sent;
  x.input = **a;
  y.input = **b;
  return same_definition(x, y);
}

/// Runs `f` once the schedules are loaded.
template <class F>
void when_loaded(keeper_ptr self, F f) {
  if (self->state.loaded)
    f();
  else
    self->state.before_load.push_back(f);
}

/// An answer, or the error in its place.
template <class T>
using answer_fn = std::function<void(caf::expected<T>)>;

/// Makes a change that names no revision, which means the newest: when
/// another process sharing the store wrote the schedule since this one
/// read it (`stale_revision`), the entry now holds what it found, and the
/// change is made again on that, a few times at most.
template <class T>
void on_newest(std::function<void(answer_fn<T>)> attempt, caf::typed_response_promise<T> rp,
               int tries = 3) {
  attempt([attempt, rp, tries](caf::expected<T> r) mutable {
    if (!r && r.error() == errc::stale_revision && tries > 1)
      on_newest(attempt, rp, tries - 1);
    else if (r)
      rp.deliver(std::move(*r));
    else
      rp.deliver(std::move(r.error()));
  });
}

} // namespace

caf::result<schedule_result> on_create(keeper_ptr self, schedule& s, const std::string& by) {
  auto rp = self->make_response_promise<schedule_result>();
  if (auto err = check_request(self, s)) {
    rp.deliver(std::move(err));
    return rp;
  }
  if (auto err = self->state.rt->writer->refusal()) {
    rp.deliver(std::move(err));
    return rp;
  }
  when_free(self, s.id, [self, rp, s, by](schedule_entry* e) mutable {
    auto answer_existing = [self, rp, s](const schedule_entry& e) mutable {
      if (same_as_stored(self, e.s, s))
        rp.deliver(schedule_result{view_of(e), false});
      else
        rp.deliver(make_error(errc::idempotency_conflict,
                              "schedule '" + s.id + "' exists with another definition"));
    };
    if (e) {
      answer_existing(*e);
      return;
    }
    auto& st = self->state;
    auto now = st.rt->clk->now();
    auto& fresh = st.entries[s.id];
    set_definition(fresh.s, s);
    fresh.s.created_at = now;
    fresh.s.handled_until = now;
    auto first = fresh.s;
    write(self, s.id, std::move(first), {schedule_change(self, s.id, "created", by)},
          [self, rp, s, answer_existing](caf::error err) mutable {
            auto i = self->state.entries.find(s.id);
            if (!err && i != self->state.entries.end()) {
              rp.deliver(schedule_result{view_of(i->second), true});
            } else if (i == self->state.entries.end() || i->second.s.revision == 0) {
              forget(self, s.id); // not written, and nobody else's
              rp.deliver(std::move(err));
            } else {
              answer_existing(i->second); // another process created it first
            }
          });
  });
  return rp;
}

caf::result<schedule_view> on_replace(keeper_ptr self, schedule& s, const std::string& by) {
  auto rp = self->make_response_promise<schedule_view>();
  if (auto err = check_request(self, s)) {
    rp.deliver(std::move(err));
    return rp;
  }
  auto attempt = [self, s, by](answer_fn<schedule_view> done) {
    when_free(self, s.id, [self, s, by, done](schedule_entry* e) {
      if (!e) {
        done(no_schedule(s.id));
        return;
      }
      auto next = e->s;
      set_definition(next, s);
      // From the next fire on: the fires due before the edit were the old
      // definition's.
      next.handled_until = std::max(next.handled_until, self->state.rt->clk->now());
      if (next.paused)
        e->queued.reset();
      write(self, s.id, std::move(next), {schedule_change(self, s.id, "replaced", by)},
            [self, done, id{s.id}](caf::error err) {
              if (err)
                done(std::move(err));
              else
                done(view_of(self->state.entries.at(id)));
            });
    });
  };
  on_newest<schedule_view>(attempt, rp);
  return rp;
}

caf::result<schedule_view> on_get(keeper_ptr self, const std::string& id) {
  auto rp = self->make_response_promise<schedule_view>();
  when_loaded(self, [self, rp, id]() mutable {
    auto answer = [self, rp, id]() mutable {
      auto i = self->state.entries.find(id);
      if (i == self->state.entries.end() || i->second.s.revision == 0)
        rp.deliver(no_schedule(id));
      else
        rp.deliver(view_of(i->second));
    };
    // Another process may have just written it (a shared store).
    if (self->state.rt->lease && self->state.entries.count(id) == 0)
      read_all(self, answer);
    else
      answer();
  });
  return rp;
}

caf::result<std::vector<schedule_view>> on_list(keeper_ptr self) {
  auto rp = self->make_response_promise<std::vector<schedule_view>>();
  when_loaded(self, [self, rp]() mutable {
    std::vector<schedule_view> out;
    out.reserve(self->state.entries.size());
    for (auto& kv : self->state.entries)
      if (kv.second.s.revision > 0)
        out.push_back(view_of(kv.second));
    std::sort(out.begin(), out.end(),
              [](const auto& x, const auto& y) { return x.schedule.id < y.schedule.id; });
    rp.deliver(std::move(out));
  });
  return rp;
}

caf::result<schedule_view> on_delete(keeper_ptr self, const std::string& id,
                                     const std::string& by) {
  auto rp = self->make_response_promise<schedule_view>();
  auto attempt = [self, id, by](answer_fn<schedule_view> done) {
    when_free(self, id, [self, id, by, done](schedule_entry* e) {
      if (!e) {
        done(no_schedule(id));
        return;
      }
      auto was = view_of(*e);
      erase(self, id, {schedule_change(self, id, "deleted", by)}, [done, was](caf::error err) {
        if (err)
          done(std::move(err));
        else
          done(was);
      });
    });
  };
  on_newest<schedule_view>(attempt, rp);
  return rp;
}

caf::result<schedule_view> on_pause(keeper_ptr self, const std::string& id, bool paused,
                                    const std::string& by) {
  auto rp = self->make_response_promise<schedule_view>();
  auto attempt = [self, id, paused, by](answer_fn<schedule_view> done) {
    // The entry's view, read anew: another process may have changed or
    // deleted it since this one last read it.
    auto answer_read = [self, id, done] {
      read_all(self, [self, id, done] {
        auto i = self->state.entries.find(id);
        if (i == self->state.entries.end() || i->second.s.revision == 0)
          done(no_schedule(id));
        else
          done(view_of(i->second));
      });
    };
    when_free(self, id, [self, id, paused, by, done, answer_read](schedule_entry* e) {
      if (!e) {
        done(no_schedule(id));
        return;
      }
      if (e->s.paused == paused && !self->state.rt->lease) {
        done(view_of(*e));
        return;
      }
      if (e->s.paused == paused) { // nothing to write
        answer_read();
        return;
      }
      auto next = e->s;
      next.paused = paused;
      if (paused)
        e->queued.reset();
      else // the fires missed while paused are not caught up
        next.handled_until = std::max(next.handled_until, self->state.rt->clk->now());
      auto change = schedule_change(self, id, paused ? "paused" : "resumed", by);
      write(self, id, std::move(next), {std::move(change)}, [self, done, id](caf::error err) {
        if (err)
          done(std::move(err));
        else
          done(view_of(self->state.entries.at(id)));
      });
    });
  };
  on_newest<schedule_view>(attempt, rp);
  return rp;
}

caf::result<start_result> on_trigger(keeper_ptr self, const std::string& id,
                                     const std::string& by) {
  auto rp = self->make_response_promise<start_result>();
  when_free(self, id, [self, rp, id, by](schedule_entry* e) mutable {
    if (!e)
      rp.deliver(no_schedule(id));
    else
      fire(self, id, trigger_time(e->s, self->state.rt->clk->now()), rp, by);
  });
  return rp;
}

} // namespace stepwise
