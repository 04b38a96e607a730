#include "workflows/overrides.hpp"

#include <algorithm>
#include <tuple>

namespace stepwise::workflows {

std::string override_property(const std::string& component, const std::string& key) {
  return "overrides/" + component + "/" + key;
}

void add_override_properties(boost::json::object& properties,
                             const std::vector<override_value>& overrides) {
  for (auto& o : overrides) {
    boost::json::object prop{{"value", o.value}, {"type", "string"}};
    if (o.secret)
      prop["secret"] = true;
    properties[override_property(o.component, o.key)] = std::move(prop);
  }
}

std::optional<std::string> check_input_overrides(const boost::json::object& input) {
  auto v = input.if_contains("overrides");
  if (v == nullptr)
    return std::nullopt;
  const char* shape = "invalid input: \"overrides\" must be an object of components, each an "
                      "object of string values by key";
  if (!v->is_object())
    return shape;
  for (auto& component : v->get_object()) {
    if (component.key().empty() || !component.value().is_object())
      return shape;
    for (auto& kv : component.value().get_object())
      if (kv.key().empty() || !kv.value().is_string())
        return shape;
  }
  return std::nullopt;
}

std::vector<override_value> input_overrides(const boost::json::object& input) {
  std::vector<override_value> out;
  auto v = input.if_contains("overrides");
  if (v == nullptr || !v->is_object())
    return out;
  for (auto& component : v->get_object()) {
    if (!component.value().is_object())
      continue;
    for (auto& kv : component.value().get_object())
      if (auto s = kv.value().if_string())
        out.push_back({std::string{component.key()}, std::string{kv.key()},
                       std::string{s->data(), s->size()}, false});
  }
  std::sort(out.begin(), out.end(), [](const override_value& x, const override_value& y) {
    return std::tie(x.component, x.key) < std::tie(y.component, y.key);
  });
  return out;
}

} // namespace stepwise::workflows
