#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/store.hpp"

namespace stepwise {

/// Schedules kept in memory, with the revision checks of the SQL stores:
/// the memory store's and the simulation's.
class memory_schedules {
public:
  /// Writes the schedule item `cp` of a batch; returns whether it was
  /// written.
  bool write(const checkpoint& cp) {
    auto& s = *cp.sched;
    auto i = rows_.find(s.id);
    if (cp.what == checkpoint::kind::schedule && s.revision == 1) {
      if (i != rows_.end())
        return false;
      rows_.emplace(s.id, s);
      return true;
    }
    if (i == rows_.end() || i->second.revision != s.revision - 1)
      return false;
    if (cp.what == checkpoint::kind::schedule_delete)
      rows_.erase(i);
    else
      i->second = s;
    return true;
  }

  std::vector<schedule> all() const {
    std::vector<schedule> out;
    for (auto& kv : rows_)
      out.push_back(kv.second);
    return out;
  }

  std::optional<schedule> find(const std::string& id) const {
    auto i = rows_.find(id);
    if (i == rows_.end())
      return std::nullopt;
    return i->second;
  }

private:
  std::map<std::string, schedule> rows_;
};

} // namespace stepwise
