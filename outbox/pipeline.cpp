#include "outbox/pipeline.hpp"

#include <algorithm>
#include <iterator>

namespace stepwise::outbox {

void pipeline::reset(int64_t cursor) {
  read_pos_ = cursor;
  in_flight_ = 0;
  waiting_.clear();
  batches_.clear();
}

void pipeline::add(std::vector<routed_event>& read) {
  for (auto& r : read) {
    if (r.ev.seq <= read_pos_)
      continue; // read twice (a poll raced a wake-up): already here
    read_pos_ = r.ev.seq;
    if (filter_.matches(r.ev, r.workflow))
      waiting_.push_back(std::move(r.ev));
  }
}

std::optional<outgoing> pipeline::take(size_t max) {
  if (waiting_.empty() || max == 0)
    return std::nullopt;
  auto n = std::min(max, waiting_.size());
  auto end = waiting_.begin() + static_cast<std::ptrdiff_t>(n);
  auto events = std::make_shared<const std::vector<event>>(
    std::make_move_iterator(waiting_.begin()), std::make_move_iterator(end));
  waiting_.erase(waiting_.begin(), end);
  auto id = next_id_++;
  batches_.push_back(batch{id, events, batch_state::in_flight});
  ++in_flight_;
  return outgoing{id, std::move(events)};
}

pipeline::batch* pipeline::find(uint64_t id) {
  for (auto& b : batches_)
    if (b.id == id)
      return &b;
  return nullptr;
}

event_batch_ptr pipeline::acked(uint64_t id) {
  auto b = find(id);
  if (b == nullptr || b->state != batch_state::in_flight)
    return nullptr;
  b->state = batch_state::acked;
  --in_flight_;
  auto events = b->events;
  while (!batches_.empty() && batches_.front().state == batch_state::acked)
    batches_.pop_front();
  return events;
}

void pipeline::failed(uint64_t id) {
  auto b = find(id);
  if (b == nullptr || b->state != batch_state::in_flight)
    return;
  b->state = batch_state::failed;
  --in_flight_;
}

void pipeline::requeue() {
  // From the oldest failed batch on, every batch goes again, the ones
  // acknowledged meanwhile too: their events arrived before the failed
  // ones' retry, and must arrive after it again, so that each event's
  // last arrival is in log order.
  auto first = std::find_if(batches_.begin(), batches_.end(),
                            [](const batch& b) { return b.state == batch_state::failed; });
  std::deque<event> again;
  for (auto b = first; b != batches_.end(); ++b)
    again.insert(again.end(), b->events->begin(), b->events->end());
  batches_.erase(first, batches_.end());
  while (!batches_.empty() && batches_.front().state == batch_state::acked)
    batches_.pop_front();
  again.insert(again.end(), std::make_move_iterator(waiting_.begin()),
               std::make_move_iterator(waiting_.end()));
  waiting_ = std::move(again);
}

int64_t pipeline::confirmed() const {
  auto upto = read_pos_;
  // Batches and waiting events are each in log order; after a requeue a
  // waiting event may be older than a batch still listed.
  if (!batches_.empty())
    upto = std::min(upto, batches_.front().events->front().seq - 1);
  if (!waiting_.empty())
    upto = std::min(upto, waiting_.front().seq - 1);
  return upto;
}

} // namespace stepwise::outbox
