#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepwise::http {

/// The parameters of a request's query, decoded, in the order the target
/// gives them. A key may come more than once: the strict readers
/// (http/query.hpp) refuse that, so it must stay visible here.
class query_params {
public:
  using value_type = std::pair<std::string, std::string>;
  using const_iterator = std::vector<value_type>::const_iterator;

  query_params() = default;

  query_params(std::initializer_list<value_type> items) : items_(items) {
    // nop
  }

  /// Adds `key=value` after the others.
  void add(std::string key, std::string value);

  /// Returns whether `key` is given (`?key` and `?key=` count).
  bool has(std::string_view key) const;

  /// Returns the value of the first `key`, or an empty string.
  const std::string& get(std::string_view key) const;

  /// Returns how many times `key` is given.
  size_t count(std::string_view key) const;

  const_iterator begin() const {
    return items_.begin();
  }

  const_iterator end() const {
    return items_.end();
  }

  size_t size() const {
    return items_.size();
  }

  bool empty() const {
    return items_.empty();
  }

private:
  std::vector<value_type> items_;
};

} // namespace stepwise::http
