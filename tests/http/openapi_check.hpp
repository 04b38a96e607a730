#pragma once

#include <string>

#include <boost/json.hpp>

#include "tests/http/fixture.hpp"

namespace stepwise::test {

/// A small validator for the subset of JSON Schema our OpenAPI document
/// uses: $ref, allOf, type, nullable, required, properties, items, enum
/// and additionalProperties false.
class validator {
public:
  explicit validator(const boost::json::value& doc) : doc_(doc) {
    // nop
  }

  /// Returns `s`, or what its `$ref` names.
  const boost::json::object& resolve(const boost::json::object& s) const;

  /// Returns "" or the first mismatch of `v` against `schema` (at `at`).
  std::string check(const boost::json::value& v, const boost::json::object& schema,
                    const std::string& at) const;

private:
  const boost::json::value& doc_;
};

/// Checks `r` against the documented responses of `method` on `path`.
void check_documented(const validator& val, const boost::json::value& doc, const std::string& path,
                      const std::string& method, const reply& r);

} // namespace stepwise::test
