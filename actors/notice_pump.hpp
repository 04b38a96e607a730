#pragma once

#include <atomic>
#include <memory>
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
/// stored commands. A notification is only a wake-up: what it says is in
/// the store, and the writer's lease tick reads it anyway every `ttl / 3`
/// (the safety net). When the connection drops, the notifications sent
/// meanwhile are lost: counted, and made up for by a read at once.
class notice_pump {
public:
  notice_pump(std::unique_ptr<notice_listener> listener, writer_events_receiver dispatcher,
              std::shared_ptr<lease_keeper> lease, metrics& stats, log_sink log);

  ~notice_pump();

  notice_pump(const notice_pump&) = delete;
  notice_pump& operator=(const notice_pump&) = delete;

  /// Ends the thread (within one wait). Idempotent.
  void stop();

private:
  void run();

  /// Tells the dispatcher what became of the stored commands a
  /// notification on `applied_channel` names.
  void tell_outcomes(const std::string& payload);

  std::unique_ptr<notice_listener> listener_;
  writer_events_receiver dispatcher_;
  std::shared_ptr<lease_keeper> lease_;
  metrics& stats_;
  log_sink log_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

} // namespace stepwise
