// `engine::launch` on the store its configuration names: here rather than
// in actors/, which knows stores only by their interface.
#include "engine/engine.hpp"

#include "storage/open_store.hpp"

namespace stepwise {

caf::expected<engine> engine::launch(caf::actor_system& sys, engine_config cfg,
                                     registry workflows) {
  auto st = open_store(cfg.store_uri);
  if (!st)
    return st.error();
  return launch(sys, std::move(cfg), std::move(workflows), std::move(*st));
}

} // namespace stepwise
