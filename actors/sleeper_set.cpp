#include "actors/sleeper_set.hpp"

namespace stepwise {

sleeper_set::sleeper_set() : by_due_(&pool_), by_id_(&pool_) {
  // nop
}

void sleeper_set::add(std::string_view id, time_point due) {
  remove(id);
  pstring key{id, &pool_};
  by_due_.emplace(due, key);
  by_id_.emplace(std::move(key), due);
}

bool sleeper_set::remove(std::string_view id) {
  auto i = by_id_.find(pstring{id, &pool_});
  if (i == by_id_.end())
    return false;
  auto range = by_due_.equal_range(i->second);
  for (auto j = range.first; j != range.second; ++j)
    if (j->second == id) {
      by_due_.erase(j);
      break;
    }
  by_id_.erase(i);
  return true;
}

bool sleeper_set::contains(std::string_view id) const {
  return by_id_.count(pstring{id}) > 0;
}

std::optional<time_point> sleeper_set::earliest() const {
  if (by_due_.empty())
    return std::nullopt;
  return by_due_.begin()->first;
}

std::vector<std::string> sleeper_set::pop_due(time_point now) {
  std::vector<std::string> out;
  auto end = by_due_.upper_bound(now);
  for (auto i = by_due_.begin(); i != end; ++i) {
    out.emplace_back(i->second);
    by_id_.erase(i->second);
  }
  by_due_.erase(by_due_.begin(), end);
  return out;
}

std::vector<std::pair<std::string, time_point>> sleeper_set::pop_latest(size_t n) {
  std::vector<std::pair<std::string, time_point>> out;
  while (out.size() < n && !by_due_.empty()) {
    auto last = std::prev(by_due_.end());
    out.emplace_back(std::string{last->second}, last->first);
    by_id_.erase(last->second);
    by_due_.erase(last);
  }
  return out;
}

void sleeper_set::clear() {
  by_due_.clear();
  by_id_.clear();
}

} // namespace stepwise
