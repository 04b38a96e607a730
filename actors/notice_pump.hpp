#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "actors/lease_keeper.hpp"
#include "actors/protocols.hpp"
#include "engine/metrics.hpp"
#include "engine/command_store.hpp"
#include "engine/log.hpp"
#include "engine/notices.hpp"

namespace stepwise {

/// The thread that listens to the store's notifications (one listening
/// connection per process) and turns those for this process into
/// messages: a command stored for it wakes the dispatcher's read of the
/// stored commands; a change in the spread of work (a process joined, left
/// or gave operations up) brings the writer's lease tick forward; a child
/// that ended in another process is counted by the children keeper; a
/// commit's events go to whoever follows them (`on_events`). A notification is only a wake-up: what it says is in
/// the store, and the writer's lease tick reads it anyway every `ttl / 3`
/// (the safety net). When the connection drops, the notifications sent
/// meanwhile are lost: counted, and made up for by a read at once.
class notice_pump {
public:
  /// `look_at_share`: asks for a lease tick now (another process joined,
  /// left or gave operations up); called on the pump's thread.
  notice_pump(std::unique_ptr<notice_listener> listener, writer_events_receiver dispatcher,
              children_keeper_actor children, std::shared_ptr<lease_keeper> lease, metrics& stats,
              log_sink log, std::function<void()> look_at_share);

  ~notice_pump();

  notice_pump(const notice_pump&) = delete;
  notice_pump& operator=(const notice_pump&) = delete;

  /// Ends the thread (within one wait). Idempotent.
  void stop();

  /// Calls `fn(first, last)` for each commit's events the store tells of
  /// (`engine::on_shared_events`). Any thread.
  void on_events(std::function<void(int64_t, int64_t)> fn);

private:
  void run();

  /// Tells the dispatcher what became of the stored commands a
  /// notification on `applied_channel` names.
  void tell_outcomes(const std::string& payload);

  /// Passes a commit's events on to `on_events_`.
  void tell_events(const std::string& payload);

  /// Tells the children keeper of a child that ended in another process.
  void tell_parent(const std::string& payload, const std::string& me);

  std::unique_ptr<notice_listener> listener_;
  writer_events_receiver dispatcher_;
  children_keeper_actor children_;
  std::shared_ptr<lease_keeper> lease_;
  metrics& stats_;
  log_sink log_;
  std::function<void()> look_at_share_;
  std::mutex events_mtx_;
  std::function<void(int64_t, int64_t)> on_events_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

} // namespace stepwise
