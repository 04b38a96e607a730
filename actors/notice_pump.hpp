#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "actors/notice_router.hpp"
#include "engine/log.hpp"
#include "engine/notices.hpp"

namespace stepwise {

/// The thread that listens to the store's notifications (one listening
/// connection per process) and hands them to the router, which turns those
/// for this process into messages. When the connection drops, the
/// notifications sent meanwhile are lost: counted, and made up for by a
/// read at once.
class notice_pump {
public:
  notice_pump(std::unique_ptr<notice_listener> listener, std::shared_ptr<notice_router> router,
              log_sink log);

  ~notice_pump();

  notice_pump(const notice_pump&) = delete;
  notice_pump& operator=(const notice_pump&) = delete;

  /// Ends the thread (within one wait). Idempotent.
  void stop();

private:
  void run();

  std::unique_ptr<notice_listener> listener_;
  std::shared_ptr<notice_router> router_;
  log_sink log_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

} // namespace stepwise
