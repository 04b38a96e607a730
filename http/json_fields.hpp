#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "engine/time.hpp"
#include "http/errors.hpp"

/// Reading the fields of a request body, each error a 400 naming the field.
namespace stepwise::http {

/// Returns `s` quoted for an error message (long ones cut).
std::string value_quoted(std::string_view s);

/// Reads an optional, non-empty string: absent or null leaves `out` as
/// it is.
std::optional<api_error> text_field(const boost::json::object& obj, std::string_view field,
                                    std::optional<std::string>& out);

/// Reads a string that must be there.
std::optional<api_error> required_text_field(const boost::json::object& obj, std::string_view field,
                                             std::string& out);

/// Reads an optional duration written as text ("30s", "5m", "1h30m").
std::optional<api_error> duration_field(const boost::json::object& obj, std::string_view field,
                                        std::optional<duration>& out);

} // namespace stepwise::http
