#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "http/digest.hpp"

namespace stepwise::http {

/// The service broker's basic-auth credentials, from a file with one line
/// `user:password` (`#` comments), which `reload` reads again (on SIGHUP).
/// Only a digest of `user:password` is kept. Thread-safe.
class basic_credentials {
public:
  /// Reads `path`; errors name the file, never its content.
  [[nodiscard]] static caf::expected<std::shared_ptr<basic_credentials>> open(
    const std::string& path);

  /// Reads the file again; on an error the credentials in use stay.
  [[nodiscard]] caf::expected<void> reload();

  /// Returns whether `authorization` (an `Authorization` header's value) is
  /// `Basic` with these credentials, compared in constant time.
  bool check(std::string_view authorization) const;

  const std::string& path() const {
    return path_;
  }

private:
  explicit basic_credentials(std::string path) : path_(std::move(path)) {
    // nop
  }

  std::string path_;
  mutable std::mutex mtx_;
  digest hash_{};
};

/// Returns who makes a broker request (see `event::by`): `osb:<user>`
/// for an `Authorization: Basic` value, the user part only (never the
/// password); `osb:` alone when it carries none.
std::string osb_caller(std::string_view authorization);

/// Shortest password accepted in a credentials file.
inline constexpr size_t min_broker_password = 12;

} // namespace stepwise::http
