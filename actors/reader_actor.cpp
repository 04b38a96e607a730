#include "actors/reader_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

namespace {

maybe_op to_maybe(const std::string& id, caf::expected<std::optional<operation>> res) {
  maybe_op out;
  out.id = id;
  if (res)
    out.value = std::move(*res);
  else
    out.err = std::move(res.error());
  return out;
}

/// Returns every child of `parent` as stored now, a page at a time.
children_read list_children(runtime& rt, const std::string& parent, uint64_t seq) {
  children_read out;
  out.parent_id = parent;
  out.seq = seq;
  list_filter f;
  f.parent = parent;
  f.limit = 1000;
  for (;;) {
    auto page = rt.store->list(f);
    if (!page) {
      out.children.clear();
      out.err = std::move(page.error());
      return out;
    }
    for (auto& op : page->items)
      if (auto c = summary_of(rt.present(op)))
        out.children.emplace_back(std::move(*c));
    if (page->next_cursor.empty())
      return out;
    f.cursor = std::move(page->next_cursor);
  }
}

caf::error no_commands() {
  return make_error(errc::invalid_state, "this store serves one process: it keeps no commands");
}

} // namespace

reader_actor::behavior_type serve_reads(reader_actor::pointer, runtime_ptr rt) {
  return {
    [rt](get_atom, const std::string& id) -> caf::result<operation> {
      auto res = rt->store->load(id);
      if (!res)
        return res.error();
      if (!*res)
        return make_error(errc::not_found, "no operation with id '" + id + "'");
      return rt->present(**res);
    },
    [rt](load_atom, const std::string& id) { return to_maybe(id, rt->store->load(id)); },
    [rt](load_key_atom, const std::string& key) {
      return to_maybe(key, rt->store->find_by_key(key));
    },
    [rt](list_atom, const list_filter& f) -> caf::result<operation_page> {
      auto res = rt->store->list(f);
      if (!res)
        return res.error();
      for (auto& op : res->items)
        op = rt->present(op);
      return std::move(*res);
    },
    [rt](recover_atom, const active_position& after, uint64_t limit) -> caf::result<recovered_ops> {
      auto res = rt->store->load_active_page(after, static_cast<size_t>(limit));
      if (!res)
        return res.error();
      return recovery_page(std::move(*res), static_cast<size_t>(limit));
    },
    [rt](events_atom, int64_t after, uint64_t limit) -> caf::result<std::vector<event>> {
      auto res = rt->store->events_after(after, static_cast<size_t>(limit));
      if (!res)
        return res.error();
      return std::move(*res);
    },
    [rt](load_schedules_atom) {
      auto res = rt->store->load_schedules();
      if (!res)
        return loaded_schedules{{}, std::move(res.error()), {}};
      return loaded_schedules{std::move(*res), caf::error{}, {}};
    },
    [rt](load_schedule_atom, const std::string& id) {
      loaded_schedules out;
      out.only = id;
      auto res = rt->store->load_schedule(id);
      if (!res)
        out.err = std::move(res.error());
      else if (*res)
        out.all.push_back(std::move(**res));
      return out;
    },
    [rt](children_atom, const std::string& parent, uint64_t seq,
         const children_read_receiver& reply_to) {
      caf::anon_send(reply_to, list_children(*rt, parent, seq));
    },
    [rt](purge_atom, const purge_request& req) -> caf::result<purge_result> {
      auto* r = rt->store->retention();
      if (r == nullptr)
        return make_error(errc::invalid_argument, "this store removes nothing (no retention)");
      auto res = r->purge(req);
      if (!res)
        return res.error();
      return std::move(*res);
    },
    [rt](put_command_atom, const stored_command& cmd) -> caf::result<int64_t> {
      auto* cs = rt->store->commands();
      if (cs == nullptr)
        return no_commands();
      auto res = cs->put(cmd);
      if (!res)
        return res.error();
      return *res;
    },
    [rt](take_commands_atom, const std::string& owner,
         uint64_t limit) -> caf::result<stored_commands> {
      auto* cs = rt->store->commands();
      if (cs == nullptr)
        return no_commands();
      auto res = cs->for_owner(owner, static_cast<size_t>(limit));
      if (!res)
        return res.error();
      return stored_commands{std::move(*res)};
    },
    [rt](drop_command_atom, int64_t seq, uint8_t why) -> caf::result<bool> {
      auto* cs = rt->store->commands();
      if (cs == nullptr)
        return no_commands();
      if (auto err = cs->drop(seq, static_cast<command_outcome>(why)))
        return err;
      return true;
    },
    [rt](cluster_atom) -> caf::result<cluster_view> {
      auto* leases = rt->store->leases();
      if (leases == nullptr || !rt->lease)
        return make_error(errc::invalid_state, "this store serves one process: it keeps no leases");
      auto res = leases->members();
      if (!res)
        return res.error();
      return cluster_view{rt->lease->owner(), std::move(*res)};
    },
    [rt](release_ops_atom,
         const std::vector<std::string>& ids) -> caf::result<std::vector<std::string>> {
      auto* leases = rt->store->leases();
      if (leases == nullptr)
        return std::vector<std::string>{};
      auto res = leases->release_operations(ids);
      if (!res)
        return res.error();
      return std::move(*res);
    },
  };
}

} // namespace stepwise
