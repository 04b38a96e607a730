#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepwise {

/// The parameters of one libpq statement: text values, or binary ones
/// (arrays built by `pg_array`).
///
/// Values are copied or moved in, so callers may pass temporaries; the
/// pointers of `values()` are valid until the next `add`.
class pg_params {
public:
  pg_params() = default;

  /// Reserves room for `n` parameters.
  explicit pg_params(size_t n) {
    data_.reserve(n);
    kind_.reserve(n);
  }

  void add(std::string_view x) {
    push(std::string{x}, text);
  }

  void add(const std::string& x) {
    add(std::string_view{x});
  }

  void add(const char* x) {
    add(std::string_view{x});
  }

  void add(std::string&& x) {
    push(std::move(x), text);
  }

  void add(int64_t x) {
    push(std::to_string(x), text);
  }

  void add(int32_t x) {
    push(std::to_string(x), text);
  }

  void add(std::optional<int64_t> x) {
    if (x)
      add(*x);
    else
      add_null();
  }

  void add_null() {
    push({}, null);
  }

  /// Adds a value in PostgreSQL's binary format for the parameter's type.
  void add_binary(std::string bytes) {
    push(std::move(bytes), binary);
  }

  int size() const noexcept {
    return static_cast<int>(data_.size());
  }

  /// Returns the value pointers libpq takes (null for NULL).
  const char* const* values();

  /// Returns the value lengths (libpq reads them for binary values only).
  const int* lengths();

  /// Returns the formats (0 text, 1 binary).
  const int* formats();

private:
  enum kind_t : uint8_t { text, binary, null };

  void push(std::string x, kind_t k) {
    data_.emplace_back(std::move(x));
    kind_.push_back(k);
  }

  std::vector<std::string> data_;
  std::vector<kind_t> kind_;
  std::vector<const char*> ptrs_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

/// Builds a one-dimensional array parameter in PostgreSQL's binary format,
/// to send many rows as one parameter of an `unnest(...)` statement. The
/// server copies the elements instead of parsing (and the client escaping)
/// an array literal, which costs much for megabytes of JSON text.
class pg_array {
public:
  /// The element types in use.
  enum class type : uint32_t {
    int4 = 23,
    int8 = 20,
    text = 25,
  };

  explicit pg_array(type elem);

  /// Adds a text element (`type::text` arrays). A NUL byte or malformed
  /// UTF-8 becomes U+FFFD, as PostgreSQL refuses them.
  void add(std::string_view x);

  /// Adds a number (`type::int4` or `type::int8` arrays).
  void add(int64_t x);

  /// Adds `x`, or NULL when there is none.
  template <class T>
  void add(const std::optional<T>& x) {
    if (x)
      add(*x);
    else
      add_null();
  }

  void add_null();

  size_t size() const noexcept {
    return count_;
  }

  /// Returns the binary value.
  std::string bytes() const;

private:
  void put32(uint32_t x);

  type elem_;
  std::string body_;
  size_t count_ = 0;
  bool has_null_ = false;
};

} // namespace stepwise
