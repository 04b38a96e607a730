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

/// The operations a walk over every documented route asks about: one that
/// succeeded, one to cancel, one to signal, one that failed (retry), one
/// to pause and resume (every other route of an operation asks `quick`).
struct walked_ops {
  std::string quick, sleepy, signaled, failed, pausable;
  /// Tokens of two tasks taken: one beaten and completed, one failed.
  std::string completed_task, failed_task;
  /// An operation waiting at its sleep step `skip_step`, which the skip
  /// route skips.
  std::string skippable{}, skip_step{};
};

/// Returns the body of the skip route for such a walk.
std::string walk_skip_body(const walked_ops& ops);

/// Returns the route `path` with its variables filled in for such a walk:
/// schedules "doc-crud" (read, replaced, deleted) and "doc" (paused,
/// resumed, triggered), `name` for a workflow or signal.
std::string walk_target(const std::string& path, const walked_ops& ops, const std::string& name);

/// The same for `method`: a workflow defined as data (`doc-wf`) is put
/// and deleted, not the built-in one `name` reads.
std::string walk_target(const std::string& path, const walked_ops& ops, const std::string& name,
                        const std::string& method);

/// The body of a walk's PUT on `path`: a schedule's or a workflow's.
std::string walk_put_body(const std::string& path, const std::string& workflow);

/// Checks `r` against the documented responses of `method` on `path`.
void check_documented(const validator& val, const boost::json::value& doc, const std::string& path,
                      const std::string& method, const reply& r);

} // namespace stepwise::test
