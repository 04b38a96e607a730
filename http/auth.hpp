#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "http/errors.hpp"
#include "http/token_file.hpp"

namespace stepwise::http {

/// What a route asks of its caller.
enum class access {
  /// Nothing: probes, the console's static files.
  open,
  /// A `read` or `write` bearer token.
  read,
  /// A `write` bearer token.
  write,
  /// A `worker` or `write` bearer token: the task routes workers call.
  worker,
  /// The service broker's own basic credentials (`/v2/`), not a token.
  broker,
};

/// Returns what the route `pattern` asks of a `method` request: the probes
/// and the console's files are open, `/metrics` too unless `metrics_auth`,
/// `/v2/` is the broker's, the workers' task routes take a worker token,
/// GET and HEAD read, anything else writes.
access access_for(std::string_view method, std::string_view pattern, bool metrics_auth);

/// The `WWW-Authenticate` value of a 401 for a missing or wrong token.
inline constexpr const char* bearer_challenge = "Bearer realm=\"stepwise\"";

/// The bearer tokens of a server, from a token file that `reload` reads
/// again (on SIGHUP). Thread-safe: requests check while a reload swaps.
class authenticator {
public:
  /// Reads `path`; fails when it cannot be read, is malformed or holds no
  /// token.
  [[nodiscard]] static caf::expected<std::shared_ptr<authenticator>> open(const std::string& path);

  /// Reads the file again. On an error the tokens in use stay; the error
  /// names the file and line, never a token. Returns the number of tokens.
  [[nodiscard]] caf::expected<size_t> reload();

  /// Returns the error to answer a request that needs `need` and carries
  /// `authorization` (the header's value, empty when absent): 401 when
  /// missing or wrong, 403 for a read token on a write route; none when it
  /// may go on.
  std::optional<api_error> check(access need, std::string_view authorization) const;

  /// Returns the name of the token that `authorization` carries, or empty
  /// when it carries none that is valid: what bounds are counted by.
  std::string name_of(std::string_view authorization) const;

  const std::string& path() const {
    return path_;
  }

private:
  explicit authenticator(std::string path) : path_(std::move(path)) {
    // nop
  }

  std::shared_ptr<const token_set> tokens() const;

  std::string path_;
  mutable std::mutex mtx_;
  std::shared_ptr<const token_set> tokens_;
};

/// Returns who makes a request that carries `authorization` (see
/// `event::by`): the name of its token, or `anonymous` when `auth` is null
/// (a server without tokens) or it carries no valid token.
std::string caller_name(const authenticator* auth, std::string_view authorization);

/// Returns the token of an `Authorization: Bearer TOKEN` value, or empty.
std::string_view bearer_token(std::string_view authorization);

} // namespace stepwise::http
