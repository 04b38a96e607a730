#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "engine/operation.hpp"
#include "engine/step_context.hpp"

namespace stepwise {

/// The text shown instead of a secret value.
inline constexpr const char* secret_mask = "***";

/// Returns `input` with the values at `pointers` (JSON pointers) replaced
/// by `"***"`.
boost::json::object mask_paths(const boost::json::object& input,
                               const std::vector<std::string>& pointers);

/// Collects the string forms of every secret value: the input values at
/// `pointers` and the transient values flagged secret.
std::vector<std::string> secret_strings(const boost::json::object& input,
                                        const std::vector<std::string>& pointers,
                                        const transient_map& transient);

/// Appends the string forms of `v` (every string in it, every other
/// scalar as JSON) to `out`: what must not show in an error message.
void collect_secret_strings(const boost::json::value& v, std::vector<std::string>& out);

/// Returns `text` with every occurrence of each secret replaced by `"***"`,
/// so that no error message carries a secret.
std::string scrub(std::string text, const std::vector<std::string>& secrets);

/// Scrubs every string value inside `x` (at any depth) in place.
void scrub_json(boost::json::object& x, const std::vector<std::string>& secrets);

} // namespace stepwise
