#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace stepwise::http {

/// A SHA-256 digest.
using digest = std::array<unsigned char, 32>;

/// Returns the SHA-256 digest of `text`.
digest sha256(std::string_view text);

/// Returns whether `a` and `b` are equal, in a time that does not depend on
/// where they differ (OpenSSL's `CRYPTO_memcmp`). Secrets are compared as
/// digests, so that their length does not show either.
bool digests_equal(const digest& a, const digest& b);

/// Returns the digest written as 64 hexadecimal digits, or nothing.
std::optional<digest> digest_from_hex(std::string_view hex);

/// Returns the bytes that standard base64 `text` encodes (padding
/// optional), or nothing when it is not base64.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace stepwise::http
