#pragma once

#include <memory>

#include <caf/expected.hpp>

#include "engine/clock.hpp"
#include "infra/delayed_calls.hpp"
#include "infra/driver.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Returns the infrastructure driver `opts.driver` selects: the HTTP client
/// of an external Ignition driver for a URL, the simulated cloud (configured
/// by the `sim_*` options) for `sim`. Fails with a message that never quotes
/// the URL (it may carry credentials); `stepwise serve` then runs without
/// the Infrastructure API.
/// The simulated cloud reads time from `clk` (the engine's clock) and
/// delays its answers by `--sim-call-ms` through `later` (none: at once).
[[nodiscard]] caf::expected<std::shared_ptr<infra::driver>> make_driver(
  const serve_options& opts, std::shared_ptr<const clock> clk,
  std::shared_ptr<infra::delayed_calls> later = nullptr);

} // namespace stepwise::tools
