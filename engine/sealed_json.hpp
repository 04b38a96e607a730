#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "engine/key_ring.hpp"

/// Secret values inside an operation's JSON (its input at the paths its
/// workflow declares secret, values a step keeps with `keep_secret`), as
/// they are stored: each replaced by a sealed value, an object with the
/// string member `$sealed`:
///
/// - `{"$sealed": "1:KEY_ID:BASE64"}`: encrypted (`secret_box`);
/// - `{"$sealed": "plain", "value": V}`: an engine without a key ring
///   (`--insecure-plaintext-secrets`); `stepwise secrets rotate` encrypts
///   it once there is one.
///
/// `owner` is the id of the operation the value belongs to.
namespace stepwise {

/// Returns whether `v` is a sealed value.
bool is_sealed(const boost::json::value& v);

/// Returns `v` sealed with the current key of `keys` (the plain form when
/// `keys` is null).
[[nodiscard]] caf::expected<boost::json::value> seal_value(const boost::json::value& v,
                                                           const key_ring* keys,
                                                           std::string_view owner);

/// Returns the value that `sealed` holds. Errors (`errc::secret_key`) name
/// the key id.
[[nodiscard]] caf::expected<boost::json::value> open_value(const boost::json::value& sealed,
                                                           const key_ring* keys,
                                                           std::string_view owner);

/// Seals the values of `doc` at the JSON pointers `paths`; absent ones are
/// skipped, sealed ones left as they are.
[[nodiscard]] caf::error seal_paths(boost::json::object& doc, const std::vector<std::string>& paths,
                                    const key_ring* keys, std::string_view owner);

/// Returns `doc` with every sealed value in it (at any depth) opened, or
/// `doc` itself when it holds none. `revealed`, when given, receives the
/// string forms of the opened values (`collect_secret_strings`).
[[nodiscard]] caf::expected<std::shared_ptr<const boost::json::object>> open_all(
  const std::shared_ptr<const boost::json::object>& doc, const key_ring* keys,
  std::string_view owner, std::vector<std::string>* revealed = nullptr);

/// Seals again, with the current key, every sealed value of `doc` that
/// another key sealed (or that is plain). Returns how many. Fails on the
/// first value it cannot open, leaving those before it resealed.
[[nodiscard]] caf::expected<size_t> reseal_all(boost::json::object& doc, const key_ring& keys,
                                               std::string_view owner);

/// Returns whether `doc` holds a sealed value at any depth.
bool holds_sealed(const boost::json::object& doc);

/// Replaces every sealed value in `doc` by `"***"`.
void mask_sealed(boost::json::object& doc);

} // namespace stepwise
