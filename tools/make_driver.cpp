#include "tools/make_driver.hpp"

#include "engine/errc.hpp"
#include "infra/sim_driver.hpp"
#include "http/infra_client_driver.hpp"

namespace stepwise::tools {

caf::expected<std::shared_ptr<infra::driver>>
make_driver(const serve_options& opts, std::shared_ptr<const clock> clk) {
  if (opts.driver != "sim") {
    http::client_driver_config cfg;
    cfg.base_url = opts.driver;
    auto d = http::client_driver::make(std::move(cfg));
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
  return std::shared_ptr<infra::driver>(
    std::make_shared<infra::sim_driver>(std::move(cfg), std::move(clk)));
}

} // namespace stepwise::tools
