#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/time.hpp"

#include "http/errors.hpp"
#include "http/query_params.hpp"

namespace stepwise::http {

/// Strict readers of query parameters. Each returns the error (400
/// `invalid_argument`, naming the parameter and what it takes) or none; an
/// absent parameter leaves `out` unchanged.
class query {
public:
  explicit query(const query_params& params) : params_(params) {
    // nop
  }

  /// Rejects parameters not in `known` and parameters given twice, so that a
  /// typo (`stat=failed`) cannot silently widen a request.
  std::optional<api_error> only(std::initializer_list<std::string_view> known) const {
    return only(known, {});
  }

  /// As `only`, but the names in `repeatable` may come more than once.
  std::optional<api_error> only(std::initializer_list<std::string_view> known,
                                std::initializer_list<std::string_view> repeatable) const;

  /// Reads a decimal integer in [lo, hi].
  std::optional<api_error> integer(const char* name, int64_t lo, int64_t hi, int64_t& out) const;

  /// Reads a non-negative decimal number (`1`, `0.5`) in [0, hi].
  std::optional<api_error> seconds(const char* name, double hi, double& out) const;

  /// Reads a string; `allow_empty` false makes `name=` an error.
  std::optional<api_error> text(const char* name, std::string& out, bool allow_empty = false) const;

  /// Reads an RFC 3339 time.
  std::optional<api_error> time(const char* name, std::optional<time_point>& out) const;

  /// Reads every `name=key=value` (a repeatable parameter), in order: keys
  /// as labels have them (engine/labels.hpp), values of up to 256 bytes.
  std::optional<api_error> labels(const char* name,
                                  std::vector<std::pair<std::string, std::string>>& out) const;

private:
  const query_params& params_;
};

} // namespace stepwise::http
