#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "actors/lease_keeper.hpp"
#include "actors/protocols.hpp"
#include "engine/metrics.hpp"
#include "engine/notices.hpp"

namespace stepwise {

/// Turns the store's notifications for this process into messages: a
/// command stored for it wakes the dispatcher's read of the stored
/// commands; a change in the spread of work (a process joined, left or gave
/// operations up) brings the writer's lease tick forward; a child that
/// ended in another process is counted by the children keeper; schedules
/// another process wrote are read by the schedule keeper; a commit's
/// events go to whoever follows them (`on_events`). A notification is only
/// a wake-up: what it says is in the store, and the writer's lease tick
/// reads it anyway every `ttl / 3` (the safety net). Apart from the
/// listening thread (notice_pump) so that the simulation routes the
/// notifications it delivers, late, twice or never, the same way.
class notice_router {
public:
  /// `look_at_share`: asks for a lease tick now; called on the routing
  /// thread.
  notice_router(writer_events_receiver dispatcher, children_keeper_actor children,
                schedule_keeper_actor schedules, std::shared_ptr<lease_keeper> lease,
                metrics& stats, std::function<void()> look_at_share);

  /// Routes what one wait brought. `first`: the first wait of a new
  /// listener (what was said before it listened is looked for at once).
  void route(const notices& got, bool first);

  /// Calls `fn(first, last)` for each commit's events the store tells of
  /// (`engine::on_shared_events`). Any thread.
  void on_events(std::function<void(int64_t, int64_t)> fn);

  /// Calls `fn` on the routing thread when workflows defined as data
  /// changed (and after a lost connection). Set before the first `route`.
  void on_workflows(std::function<void()> fn) {
    on_workflows_ = std::move(fn);
  }

private:
  /// Tells the dispatcher what became of the stored commands a
  /// notification on `applied_channel` names.
  void tell_outcomes(const std::string& payload);

  /// Passes a commit's events on to `on_events_`.
  void tell_events(const std::string& payload);

  /// Tells the children keeper of a child that ended in another process.
  void tell_parent(const std::string& payload, const std::string& me);

  writer_events_receiver dispatcher_;
  children_keeper_actor children_;
  schedule_keeper_actor schedules_;
  std::shared_ptr<lease_keeper> lease_;
  metrics& stats_;
  std::function<void()> look_at_share_;
  std::function<void()> on_workflows_;
  std::mutex events_mtx_;
  std::function<void(int64_t, int64_t)> on_events_;
};

} // namespace stepwise
