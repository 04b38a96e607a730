#include "actors/notice_pump.hpp"

#include <caf/send.hpp>

#include "actors/messages.hpp"

namespace stepwise {

namespace {

/// How long one wait lasts: how late a stop is seen.
constexpr auto notice_wait_slice = std::chrono::milliseconds(250);

/// After a failed connection, how long before the next try.
constexpr auto reconnect_after = std::chrono::seconds(1);

} // namespace

notice_pump::notice_pump(std::unique_ptr<notice_listener> listener,
                         writer_events_receiver dispatcher, std::shared_ptr<lease_keeper> lease,
                         metrics& stats)
  : listener_(std::move(listener)),
    dispatcher_(std::move(dispatcher)),
    lease_(std::move(lease)),
    stats_(stats) {
  thread_ = std::thread([this] { run(); });
}

notice_pump::~notice_pump() {
  stop();
}

void notice_pump::stop() {
  stopping_ = true;
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id())
    thread_.join();
}

void notice_pump::run() {
  while (!stopping_.load()) {
    auto got = listener_->wait(std::chrono::duration_cast<duration>(notice_wait_slice));
    if (!got) {
      // The store's own fault reports (readiness, logs) come from the
      // commit path; here the next try is all there is to do.
      for (auto waited = std::chrono::milliseconds(0);
           waited < reconnect_after && !stopping_.load(); waited += notice_wait_slice)
        std::this_thread::sleep_for(notice_wait_slice);
      continue;
    }
    bool poll = false;
    if (got->reconnected) {
      stats_.notifications_lost.fetch_add(1, std::memory_order_relaxed);
      poll = true;
    }
    auto me = lease_->owner();
    for (auto& n : got->items) {
      stats_.notifications.fetch_add(1, std::memory_order_relaxed);
      if (n.channel == commands_channel && n.payload == me)
        poll = true;
    }
    if (poll)
      caf::anon_send(dispatcher_, commands_poll_atom::value);
  }
}

} // namespace stepwise
