#include "storage/open_engine.hpp"

#include "storage/open_store.hpp"

namespace stepwise {

caf::expected<engine> open_engine(caf::actor_system& sys, engine_config cfg, registry workflows) {
  auto st = open_store(cfg.store_uri);
  if (!st)
    return st.error();
  return engine::launch(sys, std::move(cfg), std::move(workflows), std::move(*st));
}

} // namespace stepwise
