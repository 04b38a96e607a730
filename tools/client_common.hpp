#pragma once

#include <string>

#include <boost/json.hpp>

#include "tools/api_client.hpp"

namespace stepwise::tools {

/// Returns `obj[key]` as display text: strings as is, null or absent as
/// "-", anything else as compact JSON.
std::string text_of(const boost::json::value& obj, const char* key);

/// Returns `s` percent-encoded for a query string.
std::string url_encode(const std::string& s);

/// Prints `r`'s body as JSON (for --json) or its error; returns the exit
/// code (0 or 1).
int print_json_or_error(const api_result& r);

/// Prints the error of a failed call to stderr; returns 1.
int fail(const api_result& r);

/// Prints what is wrong with a value given to a command to stderr; returns 2.
int usage_error(const std::string& message);

} // namespace stepwise::tools
