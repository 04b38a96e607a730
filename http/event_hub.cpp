#include "http/event_hub.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/engine.hpp"

namespace stepwise::http {

event_hub::event_hub(size_t cache_events, renderer render)
  : capacity_(cache_events), render_(std::move(render)) {
  // nop
}

void event_hub::publish(const std::vector<event>& events) {
  if (events.empty())
    return;
  std::vector<std::function<void()>> due;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (capacity_ > 0) {
      if (!covered_from_)
        covered_from_ = events.front().seq - 1;
      for (auto& e : events)
        cache_.push_back(e);
      // Rendered by the first reader that wants it (`rendered_after`): most
      // events go to no stream, or only to streams that filter them out.
      if (render_)
        frames_.resize(cache_.size());
      while (cache_.size() > capacity_) {
        covered_from_ = cache_.front().seq;
        cache_.pop_front();
        if (!frames_.empty())
          frames_.pop_front();
      }
    }
    last_seq_ = std::max(last_seq_, events.back().seq);
    for (auto i = subscribers_.begin(); i != subscribers_.end();) {
      if (i->second.first < last_seq_) {
        due.push_back(std::move(i->second.second));
        i = subscribers_.erase(i);
      } else {
        ++i;
      }
    }
    if (!due.empty())
      ++notifying_;
  }
  cv_.notify_all();
  if (due.empty())
    return;
  // Outside the lock: a callback may take another (a connection's strand).
  for (auto& fn : due)
    fn();
  due.clear();
  {
    std::lock_guard<std::mutex> guard{mtx_};
    --notifying_;
  }
  cv_.notify_all();
}

event_hub::subscription event_hub::notify_beyond(int64_t after, std::function<void()> fn) const {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!closed_ && last_seq_ <= after) {
      auto id = next_id_++;
      subscribers_.emplace(id, std::make_pair(after, std::move(fn)));
      return subscription{this, id};
    }
  }
  fn();
  return subscription{};
}

size_t event_hub::subscribers() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return subscribers_.size();
}

void event_hub::cancel(uint64_t id) const {
  std::function<void()> dropped;
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = subscribers_.find(id);
  if (i == subscribers_.end())
    return;
  // Destroyed after the lock is released (declared before the guard): it
  // may own what releases a ticket.
  dropped = std::move(i->second.second);
  subscribers_.erase(i);
}

event_hub::subscription::subscription(subscription&& other) noexcept
  : hub_(other.hub_), id_(other.id_) {
  other.hub_ = nullptr;
}

event_hub::subscription& event_hub::subscription::operator=(subscription&& other) noexcept {
  if (this != &other) {
    cancel();
    hub_ = other.hub_;
    id_ = other.id_;
    other.hub_ = nullptr;
  }
  return *this;
}

event_hub::subscription::~subscription() {
  cancel();
}

void event_hub::subscription::cancel() {
  if (hub_ != nullptr)
    hub_->cancel(id_);
  hub_ = nullptr;
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

std::optional<event_hub::rendered> event_hub::rendered_after(int64_t after, size_t limit,
                                                             std::string& out,
                                                             const event_filter& filter) const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (!render_ || !covered_from_ || after < *covered_from_)
    return std::nullopt;
  auto first = std::upper_bound(cache_.begin(), cache_.end(), after,
                                [](int64_t x, const event& e) { return x < e.seq; });
  rendered r;
  for (auto i = first; i != cache_.end() && r.count < limit; ++i, ++r.count) {
    r.last = i->seq;
    if (!filter.wants(*i))
      continue;
    auto& frame = frames_[static_cast<size_t>(i - cache_.begin())];
    if (frame.empty())
      render_(frame, *i);
    out += frame;
  }
  cache_reads_.fetch_add(1, std::memory_order_relaxed);
  return r;
}

bool event_hub::wait_beyond(int64_t after, clock_type::time_point until) const {
  std::unique_lock<std::mutex> guard{mtx_};
  cv_.wait_until(guard, until, [&] { return closed_ || last_seq_ > after; });
  return last_seq_ > after;
}

void event_hub::close() {
  decltype(subscribers_) due;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    closed_ = true;
    due.swap(subscribers_);
  }
  cv_.notify_all();
  for (auto& kv : due)
    kv.second.second();
  due.clear();
  // A publish that took its callbacks before the close may still be
  // calling them; the server's I/O ends only after they are done.
  std::unique_lock<std::mutex> guard{mtx_};
  cv_.wait(guard, [this] { return notifying_ == 0; });
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
  if (holder_.empty())
    return;
  auto i = hub_->waiting_by_holder_.find(holder_);
  if (i != hub_->waiting_by_holder_.end() && --i->second == 0)
    hub_->waiting_by_holder_.erase(i);
}

std::shared_ptr<event_hub::ticket> event_hub::admit(size_t max) {
  return admit(max, std::string{}, max);
}

std::shared_ptr<event_hub::ticket> event_hub::admit(size_t max, const std::string& holder,
                                                    size_t max_per_holder, refusal* why) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (waiting_ >= max || closed_) {
    if (why != nullptr)
      *why = closed_ ? refusal::closed : refusal::server_full;
    return nullptr;
  }
  if (!holder.empty()) {
    auto& n = waiting_by_holder_[holder];
    if (n >= max_per_holder) {
      if (n == 0)
        waiting_by_holder_.erase(holder);
      if (why != nullptr)
        *why = refusal::holder_full;
      return nullptr;
    }
    ++n;
  }
  ++waiting_;
  return std::make_shared<ticket>(this, holder);
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
