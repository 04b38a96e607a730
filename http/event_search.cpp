#include "http/event_search.hpp"

namespace stepwise::http {

namespace {

// Event times follow seqs only roughly (a group commit writes the events of
// many operations, stamped when they happened): scan from this much before
// the operation's creation to this much after its last update.
constexpr auto time_margin = std::chrono::seconds(10);

constexpr size_t page = 1000;

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

caf::expected<operation_events> events_of(engine& eng, const operation& op, size_t max_scanned,
                                          size_t max_items) {
  operation_events out;
  auto last = last_event_seq(eng);
  if (!last)
    return last.error();
  out.last_seq = *last;
  // The greatest `lo` whose next event is older than the window's start.
  auto from = op.created_at - time_margin;
  int64_t lo = 0;
  int64_t hi = *last;
  while (lo < hi) {
    auto mid = lo + (hi - lo + 1) / 2;
    auto e = next_event(eng, mid - 1);
    if (!e)
      return e.error();
    if (*e && (*e)->time < from)
      lo = std::max(mid, (*e)->seq);
    else
      hi = mid - 1;
  }
  auto until = op.updated_at + time_margin;
  size_t scanned = 0;
  int64_t after = lo;
  for (;;) {
    auto items = eng.events(after, page);
    if (!items)
      return items.error();
    for (auto& e : *items) {
      after = e.seq;
      if (e.operation_id == op.id)
        out.items.push_back(e);
    }
    scanned += items->size();
    if (items->size() < page || (!items->empty() && items->back().time > until))
      break;
    if (scanned >= max_scanned || out.items.size() >= max_items) {
      out.complete = false;
      break;
    }
  }
  out.last_seq = std::max(out.last_seq, after);
  return out;
}

} // namespace stepwise::http
