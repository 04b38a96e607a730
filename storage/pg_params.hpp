#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepwise {

/// The text-format parameters of one libpq statement.
///
/// Values are copied, so callers may pass temporaries; `values()` is valid
/// until the next `add` (the pointers refer into this object).
class pg_params {
public:
  pg_params() = default;

  /// Reserves room for `n` parameters.
  explicit pg_params(size_t n) {
    text_.reserve(n);
    null_.reserve(n);
  }

  void add(std::string_view x) {
    text_.emplace_back(x);
    null_.push_back(false);
  }

  void add(const std::string& x) {
    add(std::string_view{x});
  }

  void add(const char* x) {
    add(std::string_view{x});
  }

  void add(std::string&& x) {
    text_.emplace_back(std::move(x));
    null_.push_back(false);
  }

  void add(int64_t x) {
    add(std::to_string(x));
  }

  void add(int32_t x) {
    add(std::to_string(x));
  }

  void add(std::optional<int64_t> x) {
    if (x)
      add(*x);
    else
      add_null();
  }

  /// Adds `x`, or NULL when it is empty.
  void add_or_null(std::string_view x) {
    if (x.empty())
      add_null();
    else
      add(x);
  }

  void add_null() {
    text_.emplace_back();
    null_.push_back(true);
  }

  int size() const noexcept {
    return static_cast<int>(text_.size());
  }

  /// Returns the value pointers libpq takes (null for NULL).
  const char* const* values() {
    ptrs_.clear();
    ptrs_.reserve(text_.size());
    for (size_t i = 0; i < text_.size(); ++i)
      ptrs_.push_back(null_[i] ? nullptr : text_[i].c_str());
    return ptrs_.data();
  }

private:
  std::vector<std::string> text_;
  std::vector<bool> null_;
  std::vector<const char*> ptrs_;
};

/// Builds a PostgreSQL array literal (`{"a","b",NULL}`) of text elements,
/// to send many rows as one parameter of an `unnest(...)` statement.
class pg_array {
public:
  void add(std::string_view x);

  void add(int64_t x) {
    sep();
    buf_ += std::to_string(x);
  }

  void add_null() {
    sep();
    buf_ += "NULL";
  }

  /// Returns the literal.
  std::string str() const {
    return '{' + buf_ + '}';
  }

private:
  void sep() {
    if (!first_)
      buf_ += ',';
    first_ = false;
  }

  std::string buf_;
  bool first_ = true;
};

} // namespace stepwise
