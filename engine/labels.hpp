#pragma once

#include <map>
#include <string>
#include <string_view>

#include <boost/json.hpp>
#include <caf/error.hpp>

/// Labels: string pairs an operation is found by (`list_filter::labels`).
namespace stepwise {

/// At most this many labels per start request.
constexpr size_t max_labels = 16;

/// At most this many bytes per label value.
constexpr size_t max_label_value = 256;

/// Returns whether `key` may name a label: 1 to 63 characters of
/// `a-z 0-9 _ . -`.
bool valid_label_key(std::string_view key);

/// Checks the labels of a start request; the error (`invalid_argument`)
/// names the field (`labels`, `labels.<key>`) and what is wrong.
[[nodiscard]] caf::error check_labels(const std::map<std::string, std::string>& labels);

/// Returns `labels` as a JSON object.
boost::json::object labels_json(const std::map<std::string, std::string>& labels);

} // namespace stepwise
