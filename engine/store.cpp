#include "engine/store.hpp"

namespace stepwise {

// The fallback of a store without an index by operation (a test's store):
// complete, at the cost of reading the whole log.
caf::expected<std::vector<event>> store::events_of(const std::string& operation_id, int64_t after,
                                                   size_t limit) {
  constexpr size_t page = 1000;
  std::vector<event> out;
  while (out.size() < limit) {
    auto items = events_after(after, page);
    if (!items)
      return std::move(items.error());
    for (auto& e : *items)
      if (e.operation_id == operation_id && out.size() < limit)
        out.push_back(std::move(e));
    if (items->size() < page)
      break;
    after = items->back().seq;
  }
  return out;
}

} // namespace stepwise
