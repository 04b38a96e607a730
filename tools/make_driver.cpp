#include "tools/make_driver.hpp"

#include "engine/errc.hpp"
#include "infra/sim_driver.hpp"
#include "infra/ignition_driver.hpp"

namespace stepwise::tools {

caf::expected<std::shared_ptr<infra::driver>> make_driver(
  const serve_options& opts, std::shared_ptr<const clock> clk,
  std::shared_ptr<infra::delayed_calls> later) {
  if (opts.driver != "sim") {
    infra::ignition_driver_config cfg;
    cfg.base_url = opts.driver;
    cfg.max_connections = static_cast<int32_t>(opts.driver_connections);
    auto d = infra::ignition_driver::make(std::move(cfg));
    if (!d)
      return d.error();
    return std::shared_ptr<infra::driver>(std::move(*d));
  }
  infra::sim_config cfg;
  cfg.seed = opts.sim_seed;
  cfg.min_latency = std::chrono::milliseconds(opts.sim_latency_min_ms);
  cfg.max_latency = std::chrono::milliseconds(opts.sim_latency_max_ms);
  cfg.failure_rate = opts.sim_failure_rate;
  cfg.locations = {opts.sim_locations.begin(), opts.sim_locations.end()};
  cfg.call_latency = std::chrono::milliseconds(opts.sim_call_ms);
  return std::shared_ptr<infra::driver>(
    std::make_shared<infra::sim_driver>(std::move(cfg), std::move(clk), std::move(later)));
}

} // namespace stepwise::tools
