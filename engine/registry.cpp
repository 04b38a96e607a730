#include "engine/registry.hpp"

#include "engine/errc.hpp"

namespace stepwise {

caf::expected<void> registry::add(workflow wf) {
  if (auto ok = wf.validate(); !ok)
    return ok.error();
  auto key = std::make_pair(wf.name(), wf.version());
  if (defs_.count(key) > 0)
    return make_error(errc::invalid_definition, "workflow '" + wf.name() + "' v"
                                                  + std::to_string(wf.version())
                                                  + " is registered twice");
  defs_.emplace(std::move(key), std::make_shared<const workflow>(std::move(wf)));
  return caf::unit;
}

workflow_ptr registry::find(const std::string& name, std::optional<int32_t> version) const {
  if (version) {
    auto i = defs_.find({name, *version});
    return i != defs_.end() ? i->second : nullptr;
  }
  auto i = defs_.upper_bound({name, INT32_MAX});
  if (i == defs_.begin())
    return nullptr;
  --i;
  return i->first.first == name ? i->second : nullptr;
}

std::vector<int32_t> registry::versions(const std::string& name) const {
  std::vector<int32_t> out;
  for (auto i = defs_.lower_bound({name, INT32_MIN}); i != defs_.end() && i->first.first == name;
       ++i)
    out.push_back(i->first.second);
  return out;
}

std::vector<workflow_ptr> registry::all() const {
  std::vector<workflow_ptr> out;
  out.reserve(defs_.size());
  for (auto& kv : defs_)
    out.push_back(kv.second);
  return out;
}

} // namespace stepwise
