#pragma once

#include <string>

#include <caf/expected.hpp>

#include "engine/cron.hpp"
#include "engine/time.hpp"

namespace date {
class time_zone;
} // namespace date

namespace stepwise {

/// A time zone of the system's tz database (Howard Hinnant's date library
/// over /usr/share/zoneinfo: C++17 has no zones of its own).
class zone {
public:
  /// Returns the zone named `name` ("UTC", "Europe/Berlin"). Fails with
  /// `errc::invalid_argument` naming it when the database has no such zone.
  static caf::expected<zone> find(const std::string& name);

  /// Returns the local minute (of this zone) that `t` falls in.
  local_minutes to_local(time_point t) const;

  /// Returns the instant of local minute `t`. A minute that occurs twice
  /// (the hour repeated when the clocks go back) is its first occurrence;
  /// one that does not occur (the hour skipped when they go forward) is
  /// the instant of the change.
  time_point to_sys(local_minutes t) const;

private:
  explicit zone(const date::time_zone* tz) : tz_(tz) {
    // nop
  }

  const date::time_zone* tz_;
};

} // namespace stepwise
