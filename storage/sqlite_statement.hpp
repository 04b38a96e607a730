#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <sqlite3.h>

#include "storage/column_reader.hpp"

namespace stepwise {

/// Owns one prepared `sqlite3_stmt` (finalized on destruction).
///
/// Binding errors (out of memory, too big) are remembered and reported by
/// the next `step`, so call sites check one return code per execution.
/// `bind` copies text, so callers may bind temporaries; `bind_ref` does
/// not, for the hot path: the bytes must outlive the next `reset`.
///
/// Its current row is a `column_reader`, so the shared row mappings read it.
///
/// Not thread-safe: it belongs to its connection's thread of use.
class sqlite_statement final : public column_reader {
public:
  sqlite_statement() = default;

  explicit sqlite_statement(sqlite3_stmt* handle) noexcept : handle_(handle) {
    // nop
  }

  sqlite_statement(sqlite_statement&& other) noexcept
    : handle_(other.handle_), bind_rc_(other.bind_rc_) {
    other.handle_ = nullptr;
  }

  sqlite_statement& operator=(sqlite_statement&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(bind_rc_, other.bind_rc_);
    return *this;
  }

  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

  ~sqlite_statement() override {
    sqlite3_finalize(handle_);
  }

  sqlite3_stmt* get() const noexcept {
    return handle_;
  }

  // -- binding (1-based indexes, as SQLite counts) ---------------------------

  void bind(int index, int64_t value) {
    note(sqlite3_bind_int64(handle_, index, value));
  }

  void bind(int index, std::string_view value) {
    note(sqlite3_bind_text64(handle_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                             SQLITE_UTF8));
  }

  /// Binds `value` without copying it: it must stay valid and unchanged
  /// until the statement is reset.
  void bind_ref(int index, std::string_view value) {
    note(
      sqlite3_bind_text64(handle_, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8));
  }

  void bind(int index, const std::string& value) {
    bind(index, std::string_view{value});
  }

  void bind(int index, const char* value) {
    bind(index, std::string_view{value});
  }

  void bind(int index, std::optional<int64_t> value) {
    if (value)
      bind(index, *value);
    else
      bind_null(index);
  }

  /// Binds `value` as `bind_ref` does, or NULL. A template, so that a
  /// `std::string` argument still picks `bind_ref(int, std::string_view)`.
  template <class Text>
  void bind_ref(int index, const std::optional<Text>& value) {
    if (value)
      bind_ref(index, *value);
    else
      bind_null(index);
  }

  void bind_null(int index) {
    note(sqlite3_bind_null(handle_, index));
  }

  // -- execution --------------------------------------------------------------

  /// Runs one step; returns `SQLITE_ROW`, `SQLITE_DONE` or an error code.
  int step() {
    if (bind_rc_ != SQLITE_OK)
      return bind_rc_;
    return sqlite3_step(handle_);
  }

  /// Makes the statement ready for new bindings. Also ends its read of the
  /// database, which WAL checkpoints wait for.
  void reset() {
    sqlite3_reset(handle_);
    sqlite3_clear_bindings(handle_);
    bind_rc_ = SQLITE_OK;
  }

  // -- columns of the current row (0-based) ----------------------------------

  bool is_null(int col) const override {
    return sqlite3_column_type(handle_, col) == SQLITE_NULL;
  }

  int64_t int64(int col) const override {
    return sqlite3_column_int64(handle_, col);
  }

  /// Valid until the next step or reset.
  std::string_view text(int col) const override {
    auto* p = sqlite3_column_text(handle_, col);
    auto n = sqlite3_column_bytes(handle_, col);
    if (p == nullptr)
      return {};
    return {reinterpret_cast<const char*>(p), static_cast<size_t>(n)};
  }

private:
  void note(int rc) {
    if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK)
      bind_rc_ = rc;
  }

  sqlite3_stmt* handle_ = nullptr;
  int bind_rc_ = SQLITE_OK;
};

/// Resets a statement when leaving a scope, so that no early return leaves
/// it holding bindings or an open read.
class statement_reset {
public:
  explicit statement_reset(sqlite_statement& stmt) noexcept : stmt_(stmt) {
    // nop
  }

  statement_reset(const statement_reset&) = delete;
  statement_reset& operator=(const statement_reset&) = delete;

  ~statement_reset() {
    stmt_.reset();
  }

private:
  sqlite_statement& stmt_;
};

} // namespace stepwise
