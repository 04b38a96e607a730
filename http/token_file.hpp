#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "http/digest.hpp"

namespace stepwise::http {

/// What a bearer token may do: `read` (GET routes, event streams),
/// `write` (everything), or `worker` (poll and answer tasks, nothing else:
/// what a task step's workers hold).
enum class role { read, write, worker };

/// One token of a token file: only its digest is kept.
struct token_entry {
  role what = role::read;
  /// Who holds it, for humans (never the token itself).
  std::string name;
  digest hash{};
};

/// The tokens of a token file: one `ROLE NAME TOKEN` a line, where ROLE is
/// `read`, `write` or `worker`, NAME names the holder and TOKEN is the token itself
/// (at least 16 characters) or `sha256:` and the 64 hex digits of its
/// SHA-256; `#` starts a comment.
class token_set {
public:
  /// Parses a token file's text. Errors name `source` and the line, and
  /// never quote a token.
  [[nodiscard]] static caf::expected<token_set> parse(std::string_view text,
                                                      const std::string& source);

  /// Reads and parses the file at `path`.
  [[nodiscard]] static caf::expected<token_set> load(const std::string& path);

  /// Returns the entry whose token is `token`, or null. Every entry's digest
  /// is compared in constant time, whichever matches.
  const token_entry* match(std::string_view token) const;

  size_t size() const {
    return entries_.size();
  }

private:
  std::vector<token_entry> entries_;
};

/// Minimum length of a token given in clear in a token file.
inline constexpr size_t min_plain_token = 16;

/// Returns `x` (an authenticator, basic credentials) once its first
/// `reload` read its file, or that reload's error.
template <class T>
caf::expected<std::shared_ptr<T>> first_loaded(std::shared_ptr<T> x) {
  if (auto ok = x->reload(); !ok)
    return ok.error();
  return x;
}

/// Reads a whole small file (a token or credentials file); errors name the
/// path.
[[nodiscard]] caf::expected<std::string> read_secret_file(const std::string& path);

} // namespace stepwise::http
