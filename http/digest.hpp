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

/// Returns the value of hexadecimal digit `c`, or -1.
int hex_digit(char c);

/// Returns the digest written as 64 hexadecimal digits, or nothing.
std::optional<digest> digest_from_hex(std::string_view hex);

/// Returns the bytes that padded standard base64 `text` encodes, or
/// nothing when it is not that.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace stepwise::http
