#pragma once

#include <optional>
#include <string>
#include <vector>

#include "outbox/sink_config.hpp"

namespace stepwise::tools {

/// Parses `value`, one `--sink` spec or several separated by `;` (as
/// `STEPWISE_SINKS` holds them), and appends them to `sinks`. Returns why
/// a spec is wrong (never quoting a secret), or none.
std::optional<std::string> add_sinks(std::vector<outbox::sink_config>& sinks,
                                     const std::string& value);

} // namespace stepwise::tools
