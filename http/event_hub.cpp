#include "http/event_hub.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/engine.hpp"

namespace stepwise::http {

event_hub::event_hub(size_t cache_events) : capacity_(cache_events) {
  // nop
}

void event_hub::publish(const std::vector<event>& events) {
  if (events.empty())
    return;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (capacity_ > 0) {
      if (!covered_from_)
        covered_from_ = events.front().seq - 1;
      for (auto& e : events)
        cache_.push_back(e);
      while (cache_.size() > capacity_) {
        covered_from_ = cache_.front().seq;
        cache_.pop_front();
      }
    }
    last_seq_ = std::max(last_seq_, events.back().seq);
  }
  cv_.notify_all();
}

std::optional<std::vector<event>> event_hub::cached_after(int64_t after, size_t limit) const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (!covered_from_ || after < *covered_from_)
    return std::nullopt;
  auto first = std::upper_bound(cache_.begin(), cache_.end(), after,
                                [](int64_t x, const event& e) { return x < e.seq; });
  std::vector<event> out;
  for (auto i = first; i != cache_.end() && out.size() < limit; ++i)
    out.push_back(*i);
  cache_reads_.fetch_add(1, std::memory_order_relaxed);
  return out;
}

bool event_hub::wait_beyond(int64_t after, clock_type::time_point until) const {
  std::unique_lock<std::mutex> guard{mtx_};
  cv_.wait_until(guard, until, [&] { return closed_ || last_seq_ > after; });
  return last_seq_ > after;
}

void event_hub::close() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    closed_ = true;
  }
  cv_.notify_all();
}

bool event_hub::closed() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return closed_;
}

int64_t event_hub::last_seq() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return last_seq_;
}

event_hub::ticket::~ticket() {
  std::lock_guard<std::mutex> guard{hub_->mtx_};
  --hub_->waiting_;
}

std::shared_ptr<event_hub::ticket> event_hub::admit(size_t max) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (waiting_ >= max || closed_)
    return nullptr;
  ++waiting_;
  return std::make_shared<ticket>(this);
}

size_t event_hub::waiting() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return waiting_;
}

namespace {

event_listener::behavior_type feed_hub(event_listener::pointer, std::shared_ptr<event_hub> hub) {
  return {
    [hub](const event_batch& batch) { hub->publish(batch.events); },
  };
}

} // namespace

event_listener spawn_event_feeder(caf::actor_system& sys, std::shared_ptr<event_hub> hub) {
  // The hub travels as a spawn argument: CAF 0.17 dereferences a null
  // argument tuple for an actor spawned without any (UBSan reports it).
  return sys.spawn(feed_hub, std::move(hub));
}

} // namespace stepwise::http
