#pragma once

#include <vector>

#include <optional>

#include <boost/json.hpp>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "engine/workflow.hpp"

namespace stepwise::http {

/// Returns `t` as an RFC 3339 string, or null.
boost::json::value time_or_null(const std::optional<time_point>& t);

/// Appends the API form of an operation as JSON text, written directly
/// rather than built as a `boost::json` tree: every start, signal and
/// command answers with one (bench/README.md, "HTTP path profile").
/// `children` (counts by state) is added when given. The engine has
/// already masked the secret input values.
void append_operation_json(std::string& out, const operation& op,
                           const boost::json::object* children = nullptr);

/// The same as a string.
std::string operation_text(const operation& op, const boost::json::object* children = nullptr);

/// Returns the API form of an operation as a tree (`operation_text` writes
/// the text itself; the engine has already masked its secret input values).
boost::json::object to_json(const operation& op);

/// Returns the API form of an event: `{seq, time, operation_id, type}` plus
/// `step`, `attempt`, `state`, `error` when set and the type's extra fields.
boost::json::object to_json(const event& e);

/// Returns the API form of a workflow definition with its steps.
boost::json::object to_json(const workflow& wf);

/// Returns the API form of each of `xs`.
template <class T>
boost::json::array to_json_array(const std::vector<T>& xs) {
  boost::json::array out;
  out.reserve(xs.size());
  for (auto& x : xs)
    out.emplace_back(to_json(x));
  return out;
}

} // namespace stepwise::http
