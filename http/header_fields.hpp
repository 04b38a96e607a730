#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace stepwise::http {

/// Orders header names without regard to case: `content-type` finds
/// `Content-Type`, as HTTP says names compare.
struct header_name_less {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

/// The header fields of a request or an answer. A name may come more than
/// once; fields are kept in name order, which is the order an answer's head
/// lists them in.
class header_fields {
public:
  using map_type = std::multimap<std::string, std::string, header_name_less>;
  using const_iterator = map_type::const_iterator;

  /// Returns whether a field `name` is present.
  bool has(std::string_view name) const;

  /// Returns the value of the first field `name`, or an empty string.
  const std::string& get(std::string_view name) const;

  /// Adds `name: value` beside any other field of that name. A name or
  /// value with CR or LF is not taken: written into an answer's head it
  /// would end the field and begin another one.
  void add(std::string name, std::string value);

  /// Replaces every field `name` by `name: value` (not taken with CR or LF,
  /// as `add`).
  void set(std::string name, std::string value);

  /// Removes every field `name`.
  void erase(std::string_view name);

  const_iterator begin() const {
    return fields_.begin();
  }

  const_iterator end() const {
    return fields_.end();
  }

  size_t size() const {
    return fields_.size();
  }

  bool empty() const {
    return fields_.empty();
  }

private:
  map_type fields_;
};

} // namespace stepwise::http
