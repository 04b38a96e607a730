#include "engine/schedule.hpp"

#include <algorithm>
#include <cctype>

#include "engine/cron.hpp"
#include "engine/errc.hpp"
#include "engine/zone.hpp"

namespace stepwise {

namespace {

constexpr std::string_view overlap_names[] = {"skip", "queue", "allow"};
constexpr std::string_view catch_up_names[] = {"none", "latest", "all"};

/// The most fires one step counts: a longer gap is skipped in several.
constexpr int64_t most_counted = 100'000;

std::optional<time_point> next_every(duration every, duration offset, time_point after) {
  auto since = after.time_since_epoch() - offset;
  // Floor division: `since` is negative before the first fire after the epoch.
  auto n = since / every;
  if (since < duration{0} && since % every != duration{0})
    --n;
  return time_point{every * (n + 1) + offset};
}

std::optional<time_point> next_cron(const schedule& s, time_point after) {
  auto expr = cron_expr::parse(s.cron);
  auto tz = zone::find(s.time_zone);
  if (!expr || !tz)
    return std::nullopt;
  auto local = tz->to_local(after);
  // A local minute can map to an instant at or before `after` (the hour
  // repeated when the clocks go back): look on from it.
  for (int i = 0; i < 1000; ++i) {
    auto next = expr->next_after(local);
    if (!next)
      return std::nullopt;
    auto t = tz->to_sys(*next);
    if (t > after)
      return t;
    local = *next;
  }
  return std::nullopt;
}

} // namespace

std::string_view to_string(overlap_policy x) {
  return overlap_names[static_cast<size_t>(x)];
}

std::string_view to_string(catch_up_policy x) {
  return catch_up_names[static_cast<size_t>(x)];
}

std::optional<overlap_policy> parse_overlap(std::string_view s) {
  for (size_t i = 0; i < std::size(overlap_names); ++i)
    if (s == overlap_names[i])
      return static_cast<overlap_policy>(i);
  return std::nullopt;
}

std::optional<catch_up_policy> parse_catch_up(std::string_view s) {
  for (size_t i = 0; i < std::size(catch_up_names); ++i)
    if (s == catch_up_names[i])
      return static_cast<catch_up_policy>(i);
  return std::nullopt;
}

bool same_definition(const schedule& a, const schedule& b) {
  return a.id == b.id && a.workflow == b.workflow && a.version == b.version && a.input == b.input
         && a.cron == b.cron && a.every == b.every && a.offset == b.offset
         && a.time_zone == b.time_zone && a.overlap == b.overlap && a.catch_up == b.catch_up
         && a.catch_up_window == b.catch_up_window && a.paused == b.paused && a.end_at == b.end_at;
}

void set_definition(schedule& to, const schedule& from) {
  to.id = from.id;
  to.workflow = from.workflow;
  to.version = from.version;
  to.input = from.input;
  to.cron = from.cron;
  to.every = from.every;
  to.offset = from.offset;
  to.time_zone = from.time_zone;
  to.overlap = from.overlap;
  to.catch_up = from.catch_up;
  to.catch_up_window = from.catch_up_window;
  to.paused = from.paused;
  to.end_at = from.end_at;
}

bool same_write(const schedule& a, const schedule& b) {
  return same_definition(a, b) && a.revision == b.revision && a.created_at == b.created_at
         && a.updated_at == b.updated_at && a.handled_until == b.handled_until
         && a.last_operation == b.last_operation && a.last_fire == b.last_fire && a.fired == b.fired
         && a.skipped == b.skipped;
}

caf::error check_schedule(const schedule& s) {
  auto bad = [](std::string why) { return make_error(errc::invalid_argument, std::move(why)); };
  if (s.id.empty() || s.id.size() > 128)
    return bad("id: 1 to 128 characters");
  for (char c : s.id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return bad("id: only A-Z a-z 0-9 - _ . (got '" + s.id + "')");
  if (s.workflow.empty())
    return bad("workflow: missing");
  if (s.cron.empty() == !s.every.has_value())
    return bad("cron, every: exactly one of the two");
  if (s.every && *s.every < std::chrono::seconds{1})
    return bad("every: at least 1s");
  if (s.offset < duration{0} || (s.every && s.offset >= *s.every) || (!s.every && s.offset.count()))
    return bad("offset: from 0 to less than every (and only with every)");
  if (!s.cron.empty()) {
    auto expr = cron_expr::parse(s.cron);
    if (!expr)
      return bad("cron: " + message_of(expr.error()));
  }
  if (auto tz = zone::find(s.time_zone); !tz)
    return bad("time_zone: " + message_of(tz.error()));
  if (s.catch_up_window <= duration{0})
    return bad("catch_up_window: must be positive");
  return caf::none;
}

std::optional<time_point> next_fire(const schedule& s, time_point after) {
  auto t = s.every ? next_every(*s.every, s.offset, after) : next_cron(s, after);
  if (t && s.end_at && *t > *s.end_at)
    return std::nullopt;
  return t;
}

std::string fire_key(const std::string& schedule_id, time_point t) {
  return "schedule:" + schedule_id + ":" + format_time(t);
}

time_point trigger_time(const schedule& s, time_point now) {
  using std::chrono::milliseconds;
  auto at = std::chrono::floor<milliseconds>(now);
  if (s.last_fire) {
    auto after = std::chrono::floor<milliseconds>(*s.last_fire) + milliseconds{1};
    at = std::max(at, after);
  }
  return at;
}

fire_step next_step(const schedule& s, time_point now) {
  if (s.paused)
    return {};
  auto first = next_fire(s, s.handled_until);
  if (!first || *first > now)
    return {fire_step::kind::wait, first, 0};
  if (now - *first <= schedule_grace)
    return {fire_step::kind::fire, first, 1};
  // Missed: count them (and note the last two, and the last out of the
  // catch-up window); a recent fire after them may follow.
  auto on_time_from = now - schedule_grace;
  auto window_from = now - s.catch_up_window;
  std::optional<time_point> last, before_last, last_old;
  int64_t count = 0;
  int64_t old = 0;
  auto t = first;
  while (t && *t < on_time_from && count < most_counted) {
    before_last = last;
    last = t;
    count += 1;
    if (*t < window_from) {
      last_old = t;
      old += 1;
    }
    t = next_fire(s, *t);
  }
  bool recent = t && *t <= now;
  switch (s.catch_up) {
    case catch_up_policy::none:
      return {fire_step::kind::skip_missed, last, count};
    case catch_up_policy::latest:
      if (recent)
        return {fire_step::kind::skip_missed, last, count};
      if (count > 1)
        return {fire_step::kind::skip_missed, before_last, count - 1};
      return {fire_step::kind::fire, last, 1};
    case catch_up_policy::all:
      if (old > 0)
        return {fire_step::kind::skip_missed, last_old, old};
      return {fire_step::kind::fire, first, 1};
  }
  return {};
}

} // namespace stepwise
