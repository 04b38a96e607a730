#include "actors/notice_router.hpp"

#include <cstdlib>
#include <utility>

#include <caf/send.hpp>

#include "actors/child_messages.hpp"
#include "actors/messages.hpp"
#include "engine/child_notice.hpp"

namespace stepwise {

notice_router::notice_router(writer_events_receiver dispatcher, children_keeper_actor children,
                             schedule_keeper_actor schedules, std::shared_ptr<lease_keeper> lease,
                             metrics& stats, std::function<void()> look_at_share)
  : dispatcher_(std::move(dispatcher)),
    children_(std::move(children)),
    schedules_(std::move(schedules)),
    lease_(std::move(lease)),
    stats_(stats),
    look_at_share_(std::move(look_at_share)) {
  // nop
}

void notice_router::route(const notices& got, bool first) {
  bool poll = false;
  bool share = false;
  bool schedules = false;
  bool workflows = false;
  if (got.reconnected) {
    stats_.notifications_lost.fetch_add(1, std::memory_order_relaxed);
    poll = true;
    share = true;
    schedules = true;
    workflows = true;
  }
  if (first) {
    // What was sent before this process listened (a share given up right
    // after its join asked for one, a schedule or workflow written while
    // the listening connection was being opened) is looked for at once.
    poll = true;
    share = true;
    schedules = true;
    workflows = true;
  }
  auto me = lease_->owner();
  for (auto& n : got.items) {
    stats_.notifications.fetch_add(1, std::memory_order_relaxed);
    if (n.channel == commands_channel && n.payload == me)
      poll = true;
    else if (n.channel == applied_channel)
      tell_outcomes(n.payload);
    else if (n.channel == balance_channel && n.payload != me)
      share = true;
    else if (n.channel == child_ended_channel)
      tell_parent(n.payload, me);
    else if (n.channel == events_channel)
      tell_events(n.payload);
    else if (n.channel == schedules_channel && n.payload != me)
      schedules = true;
    else if (n.channel == workflows_channel)
      workflows = true;
  }
  if (workflows && on_workflows_)
    on_workflows_();
  if (schedules)
    caf::anon_send(schedules_, schedules_changed_atom::value);
  if (poll)
    caf::anon_send(dispatcher_, commands_poll_atom::value);
  if (share && look_at_share_)
    look_at_share_();
}

void notice_router::tell_outcomes(const std::string& payload) {
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

void notice_router::on_events(std::function<void(int64_t, int64_t)> fn) {
  std::lock_guard<std::mutex> guard{events_mtx_};
  on_events_ = std::move(fn);
}

void notice_router::tell_events(const std::string& payload) {
  char* end = nullptr;
  auto first = std::strtoll(payload.c_str(), &end, 10);
  auto last = std::strtoll(end, nullptr, 10);
  if (first <= 0 || last < first)
    return;
  std::lock_guard<std::mutex> guard{events_mtx_};
  if (on_events_)
    on_events_(first, last);
}

void notice_router::tell_parent(const std::string& payload, const std::string& me) {
  auto n = parse_child_ended(payload);
  // Ended here: the dispatcher told the children keeper already.
  if (!n || n->owner == me)
    return;
  caf::anon_send(children_, child_ended_atom::value, std::move(n->parent),
                 static_cast<uint8_t>(n->state), std::move(n->child_key));
}

} // namespace stepwise
