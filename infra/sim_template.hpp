#pragma once

#include <optional>
#include <string_view>

#include <boost/json.hpp>

#include "infra/driver.hpp"
#include "engine/time.hpp"

namespace stepwise::infra {

/// The simulated cloud's template: a few `key: value` lines, so that demos
/// and tests can say what a task yields without a real template language.
///
///     # comments and blank lines are ignored
///     type: vm                      # any other key is accepted and ignored
///     outputs.ip_address: 10.0.0.7  # an output of the completed create
///     latency_ms: 3000              # this task's latency (else drawn)
///     fail: INSUFFICIENT_CAPACITY no room left   # the task ends FAILED
///
/// A template without any `key: value` line, a line without `:`, an empty
/// key, a non-numeric `latency_ms` or an unknown failure code is invalid.
struct sim_template {
  boost::json::object outputs;
  std::optional<duration> latency;
  std::optional<failure_details> fail;
};

/// Parses `text`; the error (kind `invalid_template`) names the bad line.
result<sim_template> parse_sim_template(std::string_view text);

} // namespace stepwise::infra
