// The embedding API's workflows defined as data: stored first, then added
// to the registry every engine actor reads.
#include "actors/definitions.hpp"
#include "actors/engine_shared.hpp"
#include "engine/errc.hpp"
#include "engine/workflow_json.hpp"

namespace stepwise {

namespace {

caf::error check_name(const std::string& name) {
  auto ok = !name.empty() && name.size() <= 64;
  for (auto c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
  return ok ? caf::error{}
            : make_error(errc::invalid_argument,
                         "the workflow name must be 1 to 64 characters of A-Z a-z 0-9 _ . -");
}

caf::error refuse_built_in(const registry& reg, const std::string& name) {
  auto wf = reg.find(name);
  if (wf && !wf->definition())
    return make_error(errc::invalid_state, "workflow '" + name
                                             + "' is built into the server: it cannot be "
                                               "defined or deleted as data");
  return {};
}

} // namespace

caf::expected<engine::defined_workflow> engine::define_workflow(const std::string& name,
                                                                const boost::json::object& def) {
  auto& rt = *shared_->rt;
  auto* defs = rt.store->definitions();
  if (defs == nullptr)
    return make_error(errc::invalid_state, "this store keeps no workflow definitions");
  if (auto err = check_name(name))
    return err;
  if (auto err = refuse_built_in(rt.workflows, name))
    return err;
  auto broker = caf::actor_cast<caf::actor>(rt.tasks);
  // A bad definition is refused before anything is written.
  if (auto probe = workflow_from_json(name, 1, def, broker); !probe)
    return std::move(probe.error());
  auto put = defs->put_definition(name, canonical_json(def));
  if (!put)
    return std::move(put.error());
  if (auto wf = rt.workflows.find(name, put->def.version))
    return defined_workflow{wf, put->created};
  auto built = build_definition(put->def, broker);
  if (!built)
    return std::move(built.error());
  static_cast<void>(rt.workflows.add(std::move(*built))); // or another thread did
  auto wf = rt.workflows.find(name, put->def.version);
  take_part(*shared_->sys, shared_->rt, *wf);
  return defined_workflow{std::move(wf), put->created};
}

caf::expected<int32_t> engine::delete_workflow(const std::string& name) {
  auto& rt = *shared_->rt;
  auto* defs = rt.store->definitions();
  if (defs == nullptr)
    return make_error(errc::invalid_state, "this store keeps no workflow definitions");
  if (auto err = refuse_built_in(rt.workflows, name))
    return err;
  auto n = defs->delete_definition(name);
  if (!n)
    return n;
  rt.workflows.remove(name);
  if (*n == 0)
    return make_error(errc::not_found, "no workflow '" + name + "' is defined as data");
  return n;
}

caf::expected<size_t> engine::reload_workflows() {
  auto& rt = *shared_->rt;
  auto n =
    load_definitions(*rt.store, rt.workflows, caf::actor_cast<caf::actor>(rt.tasks), rt.cfg.log);
  if (n && *n > 0)
    for (auto& wf : rt.workflows.all())
      take_part(*shared_->sys, shared_->rt, *wf);
  return n;
}

} // namespace stepwise
