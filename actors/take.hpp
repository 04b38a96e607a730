#pragma once

#include <optional>

namespace stepwise {

/// Removes `key` from `map` and returns what it held, or none: an answer
/// finds the entry of what it answers and takes it over.
template <class Map, class Key>
std::optional<typename Map::mapped_type> take(Map& map, const Key& key) {
  auto i = map.find(key);
  if (i == map.end())
    return std::nullopt;
  auto x = std::move(i->second);
  map.erase(i);
  return x;
}

} // namespace stepwise
