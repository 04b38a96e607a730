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

/// Returns the API form of an operation (the engine has already masked its
/// secret input values).
boost::json::object to_json(const operation& op);

/// As above, with `children`: how many children it has in each state
/// (`engine::count_children`; only the answer about one operation shows
/// them, a list would count for every item).
boost::json::object to_json(const operation& op, boost::json::object children);

/// Returns the API form of one step record.
boost::json::object to_json(const step_record& s);

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
