#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "http/errors.hpp"

namespace stepwise::http {

/// A plan of the broker's one service: it fixes the template type of the
/// runtimes it provisions.
struct osb_plan {
  const char* id;
  const char* name;
  const char* template_type;
  const char* description;
};

/// The id of the broker's one service (stable across releases: platforms
/// key on it).
inline constexpr const char* osb_service_id = "9c1f3b52-6d0e-4c57-a1f2-5e2b7d4c8a10";

/// Returns the plan with `id`, or null.
const osb_plan* find_osb_plan(std::string_view id);

/// Returns the body of `GET /v2/catalog`.
const boost::json::value& osb_catalog();

/// Returns the input of `provision_runtime` for a provision request: the
/// `parameters` (checked against the plan's schema: unknown, missing or
/// wrong-typed parameters are a 400 naming them), the plan's template type,
/// `name` defaulting to the instance id, and `broker: {instance_id,
/// service_id, plan_id}`. Keys are sorted at every level, so that the same
/// request in another key order replays the same operation.
std::optional<api_error> osb_provision_input(const std::string& instance_id, const osb_plan& plan,
                                             const boost::json::value* parameters,
                                             boost::json::object& out);

} // namespace stepwise::http
