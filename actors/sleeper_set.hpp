#pragma once

#include <map>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/time.hpp"

namespace stepwise {

/// The wake-up times of passivated operations: all that a sleeping
/// operation costs in memory. Entries come from one pool, so that many
/// thousands of long-lived entries stay dense instead of pinning pages
/// scattered over the heap that busier times left behind.
class sleeper_set {
public:
  sleeper_set();

  /// Adds `id`, due at `due` (replacing an earlier entry for it).
  void add(std::string_view id, time_point due);

  /// Removes `id`; returns whether it was there.
  bool remove(std::string_view id);

  bool contains(std::string_view id) const;

  /// Returns the earliest due time, if any.
  std::optional<time_point> earliest() const;

  /// Removes and returns every id due at or before `now`.
  std::vector<std::string> pop_due(time_point now);

  /// Removes and returns up to `n` entries, those due last first (what a
  /// process gives up to others: those it will not need soon).
  std::vector<std::pair<std::string, time_point>> pop_latest(size_t n);

  /// Removes every entry.
  void clear();

  size_t size() const {
    return by_id_.size();
  }

private:
  using pstring = std::pmr::string;
  std::pmr::unsynchronized_pool_resource pool_;
  std::pmr::multimap<time_point, pstring> by_due_;
  std::pmr::unordered_map<pstring, time_point> by_id_;
};

} // namespace stepwise
