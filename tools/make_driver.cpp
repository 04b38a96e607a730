#include "tools/make_driver.hpp"

#include "engine/errc.hpp"
#include "http/infra_client_driver.hpp"

namespace stepwise::tools {

caf::expected<std::shared_ptr<infra::driver>>
make_driver(const serve_options& opts) {
  if (opts.driver != "sim") {
    http::client_driver_config cfg;
    cfg.base_url = opts.driver;
    auto d = http::client_driver::make(std::move(cfg));
    if (!d)
      return d.error();
    return std::shared_ptr<infra::driver>(std::move(*d));
  }
  // The simulated cloud (engine/infra/sim_driver) is built on another
  // branch; it is constructed here from opts.sim_* once merged.
  return make_error(errc::invalid_argument,
                    "the sim driver is not built in; use --driver URL");
}

} // namespace stepwise::tools
