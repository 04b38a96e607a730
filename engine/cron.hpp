#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>

#include <caf/expected.hpp>
#include <date/date.h>

namespace stepwise {

/// Local time (no zone) to the minute: what a cron expression matches.
using local_minutes = date::local_time<std::chrono::minutes>;

/// A cron expression of five fields: minute (0-59), hour (0-23), day of
/// month (1-31), month (1-12 or jan-dec), day of week (0-7 or sun-sat;
/// 0 and 7 are Sunday). A field is `*`, a value, a range `a-b`, a step
/// `*/n`, `a-b/n` or `a/n` (from a to the end), or a comma-separated list
/// of those. As in Vixie cron, when both day fields are restricted a day
/// matches either; when one is `*`, the other decides.
class cron_expr {
public:
  /// Parses `text`. Fails with `errc::invalid_argument` naming the field
  /// and what is wrong with it.
  static caf::expected<cron_expr> parse(const std::string& text);

  /// Returns whether the local minute `t` matches.
  bool matches(local_minutes t) const;

  /// Returns the first local minute after `t` that matches, or none when
  /// none does within eight years (`0 0 30 2 *`: February 30th).
  std::optional<local_minutes> next_after(local_minutes t) const;

private:
  bool day_matches(int day, int month, int weekday) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;
  std::bitset<13> months_;
  std::bitset<7> weekdays_;
  bool any_day_ = false;
  bool any_weekday_ = false;
};

} // namespace stepwise
