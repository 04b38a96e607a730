// The sink_store side of memory_store (a test double).

#include <algorithm>
#include <chrono>

#include "storage/memory_store.hpp"

namespace stepwise {

namespace {

time_point wall_now() {
  return std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
}

} // namespace

caf::expected<std::vector<routed_event>> memory_store::routed_events_after(int64_t after,
                                                                           size_t limit) {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<routed_event> out;
  for (auto i = static_cast<size_t>(std::max<int64_t>(after, 0));
       i < events_.size() && out.size() < limit; ++i) {
    if (events_[i].seq == 0)
      continue;
    auto op = ops_.find(events_[i].operation_id);
    out.push_back({events_[i], op == ops_.end() ? "" : op->second.workflow});
  }
  return out;
}

caf::expected<std::optional<int64_t>> memory_store::acquire_sink(const std::string& name,
                                                                 const std::string& holder,
                                                                 duration ttl, sink_start start,
                                                                 bool steal) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto now = wall_now();
  auto [i, added] = sinks_.try_emplace(name);
  auto& rec = i->second;
  if (added) {
    rec.name = name;
    rec.cursor = start == sink_start::end ? static_cast<int64_t>(events_.size()) : 0;
  }
  if (!rec.holder.empty() && rec.holder != holder && !steal && rec.lease_expires_at
      && *rec.lease_expires_at >= now)
    return std::optional<int64_t>{};
  rec.holder = holder;
  rec.lease_expires_at = now + ttl;
  return std::optional<int64_t>{rec.cursor};
}

caf::error memory_store::update_sink(const std::string& name, const std::string& holder,
                                     duration ttl, const sink_progress& p) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = sinks_.find(name);
  if (i == sinks_.end() || i->second.holder != holder)
    return sink_lease_lost(name);
  auto& rec = i->second;
  auto now = wall_now();
  if (p.cursor > rec.cursor) {
    rec.cursor = p.cursor;
    rec.delivered_at = now;
  }
  rec.lease_expires_at = now + ttl;
  if (p.error) {
    rec.last_error = *p.error;
    if (!p.error->empty())
      rec.failed_at = now;
  }
  return caf::error{};
}

caf::error memory_store::release_sink(const std::string& name, const std::string& holder) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = sinks_.find(name);
  if (i != sinks_.end() && i->second.holder == holder) {
    i->second.holder.clear();
    i->second.lease_expires_at.reset();
  }
  return caf::error{};
}

caf::expected<std::vector<sink_record>> memory_store::sink_records() {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<sink_record> out;
  for (auto& kv : sinks_)
    out.push_back(kv.second);
  return out;
}

} // namespace stepwise
