#include "actors/notice_pump.hpp"

#include <pthread.h>

#include <cstdlib>

#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

namespace {

/// How long one wait lasts: how late a stop is seen.
constexpr auto notice_wait_slice = std::chrono::milliseconds(250);

/// After a failed connection, how long before the next try.
constexpr auto reconnect_after = std::chrono::seconds(1);

} // namespace

void notice_pump::tell_outcomes(const std::string& payload) {
  auto space = payload.find(' ');
  if (space == std::string::npos)
    return;
  auto how = parse_command_outcome(std::string_view{payload}.substr(0, space));
  if (!how)
    return;
  auto rest = payload.substr(space + 1);
  size_t pos = 0;
  while (pos < rest.size()) {
    auto comma = rest.find(',', pos);
    auto item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (auto seq = std::strtoll(item.c_str(), nullptr, 10); seq > 0)
      caf::anon_send(dispatcher_, command_done_atom::value, static_cast<int64_t>(seq),
                     static_cast<uint8_t>(*how));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
}

notice_pump::notice_pump(std::unique_ptr<notice_listener> listener,
                         writer_events_receiver dispatcher, std::shared_ptr<lease_keeper> lease,
                         metrics& stats, log_sink log)
  : listener_(std::move(listener)),
    dispatcher_(std::move(dispatcher)),
    lease_(std::move(lease)),
    stats_(stats),
    log_(std::move(log)) {
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
      else if (n.channel == applied_channel)
        tell_outcomes(n.payload);
    }
    if (poll)
      caf::anon_send(dispatcher_, commands_poll_atom::value);
  }
}

} // namespace stepwise
