#include "actors/notice_pump.hpp"

#include <pthread.h>

#include <utility>

#include "engine/errc.hpp"

namespace stepwise {

namespace {

/// How long one wait lasts: how late a stop is seen.
constexpr auto notice_wait_slice = std::chrono::milliseconds(250);

/// After a failed connection, how long before the next try.
constexpr auto reconnect_after = std::chrono::seconds(1);

} // namespace

notice_pump::notice_pump(std::unique_ptr<notice_listener> listener,
                         std::shared_ptr<notice_router> router, log_sink log)
  : listener_(std::move(listener)), router_(std::move(router)), log_(std::move(log)) {
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
  pthread_setname_np(pthread_self(), "sw-notify");
  bool failing = false;
  bool first = true;
  while (!stopping_.load()) {
    auto got = listener_->wait(std::chrono::duration_cast<duration>(notice_wait_slice));
    if (!got) {
      // Said once per outage; meanwhile the writer's lease tick reads what
      // the notifications would have said, only later.
      if (!failing)
        write_log(log_, log_level::warn,
                  "listening for the store's notifications failed (trying again every second; "
                  "commands from other servers wait for the next lease tick meanwhile): "
                    + message_of(got.error()));
      failing = true;
      for (auto waited = std::chrono::milliseconds(0);
           waited < reconnect_after && !stopping_.load(); waited += notice_wait_slice)
        std::this_thread::sleep_for(notice_wait_slice);
      continue;
    }
    if (failing)
      write_log(log_, log_level::info, "listening for the store's notifications again");
    failing = false;
    router_->route(*got, std::exchange(first, false));
  }
}

} // namespace stepwise
