// The sim_store's retention: the memory store's purge, with faults, and
// the invariants of what a purge may remove (engine/retention_store.hpp).
#include <algorithm>
#include <limits>

#include "engine/errc.hpp"
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

caf::expected<purge_result> sim_store::purge(const purge_request& req) {
  if (roll(faults.purge_fail)) {
    log_.note("store: purge fails (injected)");
    return make_error(errc::store_failure, "sim: purge failed (injected)");
  }
  // Everything stored before the purge: what it removes is judged by the
  // store as it was when the removal happened (one thread: nothing moves
  // in between).
  std::map<std::string, operation> before;
  for (auto& id : order_)
    if (!removed(id))
      if (auto op = peek(id))
        before.emplace(id, std::move(*op));
  auto res = inner_.purge(req);
  if (!res)
    return res;
  check_purge(req, *res, before);
  return res;
}

void sim_store::check_purge(const purge_request& req, const purge_result& res,
                            const std::map<std::string, operation>& before) {
  std::set<std::string> gone;
  for (auto& [id, op] : before)
    if (!peek(id))
      gone.insert(id);
  log_.note("store: purge before " + std::to_string(to_micros(req.ended_before)) + " removed "
            + std::to_string(gone.size()) + " (found " + std::to_string(res.found) + "), horizon "
            + std::to_string(res.horizon));
  log_.check_lazy(gone.size() == (req.dry_run ? 0 : res.operations), [&] {
    return "a purge said it removed " + std::to_string(res.operations) + " operations, but "
           + std::to_string(gone.size()) + " left the store";
  });
  for (auto& id : res.ids)
    log_.check_lazy(req.dry_run || gone.count(id),
                    [&] { return "a purge named " + id + " as removed, but it is still stored"; });
  for (auto& id : gone) {
    auto& op = before.at(id);
    auto why = [&](const std::string& what) {
      return "a purge removed " + id + " (" + op.workflow + ", " + std::string{to_string(op.state)}
             + ") " + what;
    };
    log_.check_lazy(is_terminal(op.state), [&] { return why("while it was not ended"); });
    log_.check_lazy(op.updated_at < req.ended_before, [&] {
      return why("written at " + std::to_string(to_micros(op.updated_at))
                 + ", not before the cutoff " + std::to_string(to_micros(req.ended_before)));
    });
    if (!op.parent_id.empty()) {
      auto p = before.find(op.parent_id);
      log_.check_lazy(p == before.end() || is_terminal(p->second.state), [&] {
        return why("while its parent " + op.parent_id + " was "
                   + std::string{to_string(p->second.state)});
      });
    }
    for (auto& [other_id, other] : before)
      log_.check_lazy(other.parent_id != id || is_terminal(other.state), [&, other_id = other_id,
                                                                          state = other.state] {
        return why("while its child " + other_id + " was " + std::string{to_string(state)});
      });
    auto top = top_seq_.count(id) ? top_seq_.at(id) : int64_t{0};
    log_.check_lazy(res.horizon >= top, [&] {
      return why("with events up to seq " + std::to_string(top) + ", but the horizon is "
                 + std::to_string(res.horizon));
    });
    removed_[id] = top;
  }
  if (!gone.empty())
    check_removed_events();
}

void sim_store::check_removed_events() {
  auto h = inner_.horizon();
  log_.check_lazy(h && *h >= horizon_seen_, [&] {
    return "the store's horizon went back from " + std::to_string(horizon_seen_) + " to "
           + (h ? std::to_string(*h) : std::string{"an error"});
  });
  if (!h)
    return;
  horizon_seen_ = *h;
  for (auto& [id, top] : removed_)
    log_.check_lazy(*h >= top, [&, id = id, top = top] {
      return "removed operation " + id + " had events up to seq " + std::to_string(top)
             + ", above the horizon " + std::to_string(*h);
    });
  auto all = inner_.events_after(0, std::numeric_limits<size_t>::max());
  if (!all)
    return;
  for (auto& e : *all)
    log_.check_lazy(!removed(e.operation_id), [&] {
      return "event " + std::to_string(e.seq) + " (" + std::string{to_string(e.type)}
             + ") of removed operation " + e.operation_id + " is still stored";
    });
}

caf::expected<int64_t> sim_store::horizon() {
  if (roll(faults.purge_fail)) {
    log_.note("store: horizon read fails (injected)");
    return make_error(errc::store_failure, "sim: horizon read failed (injected)");
  }
  return inner_.horizon();
}

caf::expected<int64_t> sim_store::size_bytes() {
  if (roll(faults.purge_fail)) {
    log_.note("store: size read fails (injected)");
    return make_error(errc::store_failure, "sim: size read failed (injected)");
  }
  return inner_.size_bytes();
}

} // namespace stepwise::sim
