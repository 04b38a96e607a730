#include "tools/sink_option.hpp"

#include "engine/errc.hpp"

namespace stepwise::tools {

std::optional<std::string> add_sinks(std::vector<outbox::sink_config>& sinks,
                                     const std::string& value) {
  // Commas and '|' are taken inside one spec: sinks are split at ';'.
  size_t pos = 0;
  while (pos <= value.size()) {
    auto end = value.find(';', pos);
    auto spec = value.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (!spec.empty()) {
      auto c = outbox::parse_sink(spec);
      if (!c)
        return message_of(c.error());
      sinks.push_back(std::move(*c));
    }
    if (end == std::string::npos)
      break;
    pos = end + 1;
  }
  return std::nullopt;
}

} // namespace stepwise::tools
