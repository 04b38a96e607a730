#include "actors/reader_actor.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

caf::behavior reader_actor(caf::event_based_actor*, core_ptr core) {
  return {
    [core](get_atom, const std::string& id) -> caf::result<operation> {
      auto res = core->store->load(id);
      if (!res)
        return res.error();
      if (!*res)
        return make_error(errc::not_found, "no operation with id '" + id + "'");
      return core->present(**res);
    },
    [core](load_atom, const std::string& id) -> caf::result<maybe_op> {
      auto res = core->store->load(id);
      if (!res)
        return res.error();
      return maybe_op{std::move(*res)};
    },
    [core](load_key_atom, const std::string& key) -> caf::result<maybe_op> {
      auto res = core->store->find_by_key(key);
      if (!res)
        return res.error();
      return maybe_op{std::move(*res)};
    },
    [core](list_atom, const list_filter& f) -> caf::result<operation_page> {
      auto res = core->store->list(f);
      if (!res)
        return res.error();
      for (auto& op : res->items)
        op = core->present(op);
      return std::move(*res);
    },
    [core](events_atom, int64_t after,
           uint64_t limit) -> caf::result<std::vector<event>> {
      auto res = core->store->events_after(after, static_cast<size_t>(limit));
      if (!res)
        return res.error();
      return std::move(*res);
    },
  };
}

} // namespace stepwise
