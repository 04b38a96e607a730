#include "engine/zone.hpp"

#include <date/tz.h>

#include "engine/errc.hpp"

namespace stepwise {

caf::expected<zone> zone::find(const std::string& name) {
  try {
    return zone{date::locate_zone(name)};
  } catch (const std::exception&) {
    return make_error(errc::invalid_argument, "unknown time zone '" + name
                                                + "' (a name of the tz database, such as "
                                                  "UTC or Europe/Berlin)");
  }
}

local_minutes zone::to_local(time_point t) const {
  return date::floor<std::chrono::minutes>(tz_->to_local(t));
}

time_point zone::to_sys(local_minutes t) const {
  auto info = tz_->get_info(t);
  switch (info.result) {
    case date::local_info::nonexistent:
      return std::chrono::time_point_cast<duration>(info.second.begin);
    case date::local_info::ambiguous:
    case date::local_info::unique:
    default:
      return time_point{
        std::chrono::duration_cast<duration>(t.time_since_epoch() - info.first.offset)};
  }
}

} // namespace stepwise
