#include "http/event_search.hpp"

namespace stepwise::http {

namespace {

// The first event after `after`, if any.
caf::expected<std::optional<event>> next_event(engine& eng, int64_t after) {
  auto items = eng.events(after, 1);
  if (!items)
    return items.error();
  if (items->empty())
    return std::optional<event>{};
  return std::optional<event>{std::move(items->front())};
}

} // namespace

caf::expected<int64_t> last_event_seq(engine& eng) {
  // Invariant: an event exists after `lo`; none exists after `hi`.
  int64_t lo = 0;
  auto first = next_event(eng, 0);
  if (!first)
    return first.error();
  if (!*first)
    return int64_t{0};
  lo = (*first)->seq;
  int64_t step = 1;
  int64_t hi = lo;
  for (;;) {
    auto e = next_event(eng, hi);
    if (!e)
      return e.error();
    if (!*e)
      break;
    lo = (*e)->seq;
    hi = lo + step;
    step *= 2;
  }
  // Now the newest seq is in [lo, hi].
  while (lo < hi) {
    auto mid = lo + (hi - lo + 1) / 2;
    auto e = next_event(eng, mid - 1);
    if (!e)
      return e.error();
    if (*e)
      lo = std::max(mid, (*e)->seq);
    else
      hi = mid - 1;
  }
  return lo;
}

} // namespace stepwise::http
