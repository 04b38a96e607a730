#include "actors/definitions.hpp"

#include <set>

#include "actors/admission_keeper.hpp"

#include "engine/errc.hpp"
#include "engine/workflow_json.hpp"

namespace stepwise {

caf::expected<workflow> build_definition(const stored_definition& def, const caf::actor& broker) {
  boost::json::error_code ec;
  auto body = boost::json::parse(def.body, ec);
  if (ec || !body.is_object())
    return make_error(errc::store_failure, "workflow '" + def.name + "' v"
                                             + std::to_string(def.version)
                                             + ": the stored definition is not a JSON object");
  return workflow_from_json(def.name, def.version, body.get_object(), broker);
}

caf::expected<size_t> load_definitions(store& st, registry& reg, const caf::actor& broker,
                                       const log_sink& log) {
  auto* defs = st.definitions();
  if (defs == nullptr)
    return size_t{0};
  auto stored = defs->load_definitions();
  if (!stored)
    return std::move(stored.error());
  size_t added = 0;
  for (auto& def : *stored) {
    if (auto known = reg.find(def.name, def.version)) {
      if (!known->definition())
        write_log(log, log_level::warn,
                  "workflow '" + def.name + "' v" + std::to_string(def.version)
                    + " is stored as data and built into this server: the built-in one runs");
      continue;
    }
    auto wf = build_definition(def, broker);
    if (!wf) {
      write_log(log, log_level::warn, "cannot build a stored workflow: " + message_of(wf.error()));
      continue;
    }
    // Another thread may have added it meanwhile: the same definition.
    if (reg.add(std::move(*wf)))
      ++added;
  }
  return added;
}

void take_part(caf::actor_system& sys, const runtime_ptr& rt, const workflow& wf) {
  if (rt->admit_workflow(wf))
    start_admission_keeper(sys, rt);
}

caf::expected<size_t> refresh_definitions(caf::actor_system& sys, const runtime_ptr& rt) {
  auto* defs = rt->store->definitions();
  if (defs == nullptr)
    return size_t{0};
  auto stored = defs->load_definitions();
  if (!stored)
    return std::move(stored.error());
  std::set<std::string> names;
  size_t added = 0;
  for (auto& def : *stored) {
    names.insert(def.name);
    if (rt->workflows.find(def.name, def.version))
      continue;
    auto wf = build_definition(def, caf::actor_cast<caf::actor>(rt->tasks));
    if (!wf) {
      write_log(rt->cfg.log, log_level::warn,
                "cannot build a stored workflow: " + message_of(wf.error()));
      continue;
    }
    if (rt->workflows.add(std::move(*wf)))
      ++added;
  }
  for (auto& wf : rt->workflows.all()) {
    if (!wf->definition())
      continue;
    if (names.count(wf->name()) == 0)
      rt->workflows.remove(wf->name()); // deleted by another process
    else
      take_part(sys, rt, *wf);
  }
  return added;
}

} // namespace stepwise
