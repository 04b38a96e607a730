#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>
#include <caf/expected.hpp>

#include "engine/time.hpp"

namespace stepwise {

/// What a fire does while the operation of the previous fire has not ended.
enum class overlap_policy : uint8_t {
  /// Nothing: the fire is skipped (`schedule_skipped`, reason `overlap`).
  skip,
  /// It waits for that operation to end, then starts its own.
  queue,
  /// It starts its operation anyway.
  allow,
};

/// What happens to fires that were missed (the engine was down, or busy
/// for longer than `schedule_grace`).
enum class catch_up_policy : uint8_t {
  /// They are skipped.
  none,
  /// The latest of them fires, when no fire is on time; the others are
  /// skipped.
  latest,
  /// Each fires, in order, if it is within `catch_up_window`.
  all,
};

std::string_view to_string(overlap_policy x);
std::string_view to_string(catch_up_policy x);
std::optional<overlap_policy> parse_overlap(std::string_view s);
std::optional<catch_up_policy> parse_catch_up(std::string_view s);

/// How late a fire may be handled and still count as on time.
inline constexpr duration schedule_grace = std::chrono::seconds{60};

/// A durable schedule: each fire starts one operation of `workflow` with
/// `input` and the idempotency key `schedule:ID:FIRE_TIME`.
struct schedule {
  // -- the definition (what a client writes)
  std::string id;
  std::string workflow;
  std::optional<int32_t> version;
  boost::json::object input;
  /// Exactly one of `cron` (five fields, in `time_zone`) and `every`
  /// (fires at the multiples of it since the Unix epoch, plus `offset`).
  std::string cron;
  std::optional<duration> every;
  /// With `every`: fires at the multiples plus this offset (0 <= offset <
  /// every), so that many schedules of one period spread over it.
  duration offset{0};
  std::string time_zone = "UTC";
  overlap_policy overlap = overlap_policy::skip;
  catch_up_policy catch_up = catch_up_policy::none;
  duration catch_up_window = std::chrono::hours{24};
  bool paused = false;
  /// No fire after this time.
  std::optional<time_point> end_at;

  // -- its state (what the engine writes)
  /// Optimistic-concurrency counter: 1 on create, +1 per write.
  int64_t revision = 0;
  time_point created_at;
  time_point updated_at;
  /// Every fire up to this time is handled (started or skipped); the next
  /// is the first after it. Set to the time of creation and of a resume.
  time_point handled_until;
  /// The operation the last fire started (empty: none yet).
  std::string last_operation;
  /// The time of the last fire that started an operation.
  std::optional<time_point> last_fire;
  /// How many fires started an operation, and how many were skipped.
  int64_t fired = 0;
  int64_t skipped = 0;
};

/// Returns whether `a` and `b` define the same schedule (a repeated
/// create of the same body is answered with the schedule, another one with
/// a conflict).
bool same_definition(const schedule& a, const schedule& b);

/// Sets the definition of `to` (its id to its end) to that of `from`,
/// leaving the state.
void set_definition(schedule& to, const schedule& from);

/// Returns whether `a` and `b` are the same write: revision, definition
/// and state.
bool same_write(const schedule& a, const schedule& b);

/// Checks the definition: one of `cron` (it parses) and `every` (at least
/// 1 s), a known time zone, a positive catch-up window. Fails with
/// `errc::invalid_argument` naming the field. The workflow is checked by
/// the engine, which knows the registry.
caf::error check_schedule(const schedule& s);

/// Returns the first fire time of `s` after `after` (none: no more, its
/// `end_at` passed, or a cron expression that never matches). `s` must
/// pass `check_schedule`.
std::optional<time_point> next_fire(const schedule& s, time_point after);

/// Returns the idempotency key of the operation of the fire at `t`.
std::string fire_key(const std::string& schedule_id, time_point t);

/// Returns the fire time of a manual trigger of `s` at `now`: `now` to the
/// millisecond (a key's resolution), or a millisecond after the last fire
/// when that is not later, so two fires never share a key. (A trigger at
/// the very millisecond of a fire still due is that fire: one operation
/// per schedule and fire time.)
time_point trigger_time(const schedule& s, time_point now);

/// What the engine does next with a schedule at `now`.
struct fire_step {
  enum class kind : uint8_t {
    /// Nothing is due: wait until `at` (none: never again).
    wait,
    /// Start the fire at `at`.
    fire,
    /// Skip `count` missed fires, the last at `at` (catch-up policy).
    skip_missed,
  };
  kind what = kind::wait;
  std::optional<time_point> at;
  int64_t count = 0;
};

/// Decides the next step for `s` at `now`: the due fires after
/// `handled_until` are on time (within `schedule_grace`) or missed, and the
/// catch-up policy says which missed ones fire. A paused schedule waits.
fire_step next_step(const schedule& s, time_point now);

} // namespace stepwise
