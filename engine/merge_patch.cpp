#include "engine/merge_patch.hpp"

#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

void merge_into(boost::json::object& doc, const boost::json::object& patch,
                const std::string& prefix, std::vector<std::string>& paths) {
  for (auto& [key, value] : patch) {
    auto path = prefix + "/" + pointer_token(key);
    if (value.is_null()) {
      if (doc.erase(key) > 0)
        paths.push_back(std::move(path));
      continue;
    }
    if (auto* sub = value.if_object()) {
      auto& target = doc[key];
      // A sealed value is not an object to merge into: its members are the
      // seal's, not the input's.
      if (!target.is_object() || is_sealed(target)) {
        target = boost::json::object{};
        paths.push_back(path);
      }
      merge_into(target.as_object(), *sub, path, paths);
      continue;
    }
    doc[key] = value;
    paths.push_back(std::move(path));
  }
}

} // namespace

std::vector<std::string> merge_patch(boost::json::object& doc, const boost::json::object& patch) {
  std::vector<std::string> paths;
  merge_into(doc, patch, "", paths);
  return paths;
}

} // namespace stepwise
