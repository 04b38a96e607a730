#include "engine/labels.hpp"

#include "engine/errc.hpp"

namespace stepwise {

bool valid_label_key(std::string_view key) {
  if (key.empty() || key.size() > 63)
    return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

caf::error check_labels(const std::map<std::string, std::string>& labels) {
  if (labels.size() > max_labels)
    return make_error(errc::invalid_argument, "field 'labels' has " + std::to_string(labels.size())
                                                + " labels; at most " + std::to_string(max_labels)
                                                + " are allowed");
  for (auto& [k, v] : labels) {
    if (!valid_label_key(k))
      return make_error(errc::invalid_argument,
                        "field 'labels': key '" + k
                          + "' must have 1 to 63 characters of a-z 0-9 _ . -");
    if (v.size() > max_label_value)
      return make_error(errc::invalid_argument, "field 'labels." + k + "' must have at most "
                                                  + std::to_string(max_label_value) + " bytes");
  }
  return caf::error{};
}

boost::json::object labels_json(const std::map<std::string, std::string>& labels) {
  boost::json::object out;
  for (auto& [k, v] : labels)
    out[k] = v;
  return out;
}

} // namespace stepwise
