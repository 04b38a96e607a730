#include "http/event_filter.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace stepwise::http {

static_assert(static_cast<unsigned>(event_type::schedule_skipped) < 32,
              "event_filter::types has a bit per event type");

void event_filter::keep_wanted(std::vector<event>& items) const {
  if (types == ~uint32_t{0})
    return;
  items.erase(
    std::remove_if(items.begin(), items.end(), [this](const event& e) { return !wants(e); }),
    items.end());
}

std::optional<api_error> read_event_filter(const query& q, event_filter& out) {
  std::string text;
  if (auto err = q.text("type", text))
    return err;
  if (text.empty())
    return std::nullopt;
  uint32_t types = 0;
  std::string_view rest{text};
  while (true) {
    auto comma = rest.find(',');
    auto name = rest.substr(0, comma);
    auto t = parse_event_type(name);
    if (!t)
      return invalid_argument("query parameter 'type' must name event types separated by "
                              "commas (operation_succeeded,operation_failed), not '"
                              + std::string(name) + "'");
    types |= uint32_t{1} << static_cast<unsigned>(*t);
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  out.types = types;
  return std::nullopt;
}

} // namespace stepwise::http
