// The processes sharing the store, as `GET /api/v1/cluster` shows them.
#include "actors/dispatcher.hpp"

#include <cstdio>

namespace stepwise {

caf::result<cluster_view> on_cluster(dispatcher_ptr self) {
  auto& st = self->state;
  if (st.rt->lease)
    return self->delegate(st.rt->reader(), cluster_atom::value);
  // Alone on its store: the lease table's view of one process, from memory,
  // with no lease (its times left at zero).
  char node[16];
  std::snprintf(node, sizeof(node), "%08x", st.node);
  owner_info me;
  me.owner = node;
  me.started_at = st.rt->started_at;
  me.url = st.rt->cfg.advertise_url;
  me.version = st.rt->cfg.build_version;
  me.operations = static_cast<int64_t>(st.live.size() + st.sleepers.size());
  return cluster_view{me.owner, {me}};
}

} // namespace stepwise
