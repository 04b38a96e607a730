#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/query_params.hpp"

namespace stepwise::http {

/// Longest request target taken (414 above): a target is a path and a
/// query, not a place for data.
inline constexpr size_t max_target_bytes = 8192;

/// Decodes a request target of origin form (`/path?query`, RFC 9112
/// 3.2.1; RFC 3986's characters and percent-escapes) with Boost.URL: sets
/// `path` to the percent-decoded path and adds the decoded query to
/// `params` (`+` a space; the empty pieces of `?`, `&&` or a trailing `&`
/// left out). A fragment, which clients should not send, is dropped.
/// Returns 0, or the status to answer instead: 414 for a target over
/// `max_target_bytes`, 400 for one that is not origin form (an invalid
/// character or percent-escape, `*`, an absolute URI).
int decode_target(std::string_view target, std::string& path, query_params& params);

/// Returns `target` without its query, percent-decoded where an escape is
/// valid and kept as it is elsewhere: a best guess at the path of a target
/// that `decode_target` refused, to pick the error's format and the metrics
/// label of its answer.
std::string path_of_target(std::string_view target);

} // namespace stepwise::http
