// The definition_store side of memory_store (a test double).
#include <chrono>

#include "engine/errc.hpp"
#include "storage/memory_store.hpp"

namespace stepwise {

caf::expected<std::vector<stored_definition>> memory_store::load_definitions() {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<stored_definition> out;
  for (auto& kv : definitions_)
    out.push_back(kv.second);
  return out;
}

caf::expected<definition_put> memory_store::put_definition(const std::string& name,
                                                           const std::string& body) {
  std::lock_guard<std::mutex> guard{mtx_};
  int32_t newest = 0;
  for (auto i = definitions_.lower_bound({name, 0});
       i != definitions_.end() && i->first.first == name; ++i)
    newest = i->first.second;
  if (newest > 0 && definitions_[{name, newest}].body == body)
    return definition_put{definitions_[{name, newest}], false};
  stored_definition def{name, newest + 1, body,
                        std::chrono::time_point_cast<duration>(std::chrono::system_clock::now())};
  definitions_[{name, def.version}] = def;
  return definition_put{std::move(def), true};
}

caf::expected<int32_t> memory_store::delete_definition(const std::string& name) {
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& kv : ops_)
    if (kv.second.workflow == name && !is_terminal(kv.second.state))
      return make_error(errc::invalid_state,
                        "operation " + kv.first + " of workflow '" + name + "' has not ended");
  int32_t n = 0;
  for (auto i = definitions_.lower_bound({name, 0});
       i != definitions_.end() && i->first.first == name;) {
    i = definitions_.erase(i);
    ++n;
  }
  return n;
}

} // namespace stepwise
