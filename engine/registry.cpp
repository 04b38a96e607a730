#include "engine/registry.hpp"

#include "engine/errc.hpp"

namespace stepwise {

registry::registry(const registry& other) : defs_(other.current()) {
  // nop
}

std::shared_ptr<const registry::map_type> registry::current() const {
  return std::atomic_load(&defs_);
}

caf::expected<void> registry::add(workflow wf) {
  if (auto ok = wf.validate(); !ok)
    return ok.error();
  auto key = std::make_pair(wf.name(), wf.version());
  std::lock_guard<std::mutex> guard{*change_};
  auto defs = current();
  if (defs->count(key) > 0)
    return make_error(errc::invalid_definition, "workflow '" + wf.name() + "' v"
                                                  + std::to_string(wf.version())
                                                  + " is registered twice");
  auto next = std::make_shared<map_type>(*defs);
  next->emplace(std::move(key), std::make_shared<const workflow>(std::move(wf)));
  std::atomic_store(&defs_, std::shared_ptr<const map_type>{std::move(next)});
  return caf::unit;
}

size_t registry::remove(const std::string& name) {
  std::lock_guard<std::mutex> guard{*change_};
  auto next = std::make_shared<map_type>(*current());
  size_t n = 0;
  for (auto i = next->lower_bound({name, INT32_MIN}); i != next->end() && i->first.first == name;) {
    i = next->erase(i);
    ++n;
  }
  std::atomic_store(&defs_, std::shared_ptr<const map_type>{std::move(next)});
  return n;
}

workflow_ptr registry::find(const std::string& name, std::optional<int32_t> version) const {
  auto defs = current();
  if (version) {
    auto i = defs->find({name, *version});
    return i != defs->end() ? i->second : nullptr;
  }
  auto i = defs->upper_bound({name, INT32_MAX});
  if (i == defs->begin())
    return nullptr;
  --i;
  return i->first.first == name ? i->second : nullptr;
}

std::vector<int32_t> registry::versions(const std::string& name) const {
  auto defs = current();
  std::vector<int32_t> out;
  for (auto i = defs->lower_bound({name, INT32_MIN}); i != defs->end() && i->first.first == name;
       ++i)
    out.push_back(i->first.second);
  return out;
}

std::vector<workflow_ptr> registry::all() const {
  auto defs = current();
  std::vector<workflow_ptr> out;
  out.reserve(defs->size());
  for (auto& kv : *defs)
    out.push_back(kv.second);
  return out;
}

} // namespace stepwise
