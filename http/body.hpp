#pragma once

#include <optional>
#include <string_view>

#include <boost/json.hpp>

#include "engine/engine.hpp"
#include "http/errors.hpp"

namespace stepwise::http {

/// Parses a request body as JSON, at most `max_depth` levels deep. Returns
/// the error (400 `malformed_json`, naming the byte where parsing stopped)
/// or none and fills `out`.
std::optional<api_error> parse_json(std::string_view body, size_t max_depth,
                                    boost::json::value& out);

/// Returns a 400 saying that `field` must be `expected` (e.g. "a string")
/// and what it is instead.
api_error wrong_type(std::string_view field, const char* expected, const boost::json::value& got);

/// Reads the optional workflow version `obj[field]` (absent or null:
/// none), an integer from 1 to INT32_MAX.
std::optional<api_error> decode_version(const boost::json::object& obj, std::string_view field,
                                        std::optional<int32_t>& out);

/// Decodes the body of `POST /api/v1/operations`:
/// `{workflow, version?, input, idempotency_key?, deadline?}`. Unknown
/// fields are rejected so that a misspelt optional field does not silently
/// change what runs. Optional fields may be `null`.
std::optional<api_error> decode_start(const boost::json::value& body, start_request& out);

/// Checks the optional body of cancel and retry: empty, or an empty JSON
/// object.
std::optional<api_error> check_empty_command(std::string_view body, size_t max_depth);

} // namespace stepwise::http
