#pragma once

#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "engine/key_ring.hpp"

/// AES-256-GCM through OpenSSL's EVP interface, for the secret values of
/// operations. A sealed text is `1:KEY_ID:BASE64`, where BASE64 holds a
/// fresh random 12-byte nonce, the ciphertext and the 16-byte tag. The
/// `context` (the operation id) is authenticated with it: a sealed value
/// copied into another operation does not open.
///
/// Random nonces are safe for about 2^32 values per key; rotate the key
/// long before that.
namespace stepwise::secret_box {

/// Returns `plaintext` sealed with the ring's current key.
[[nodiscard]] caf::expected<std::string> seal(const key_ring& keys, std::string_view plaintext,
                                              std::string_view context);

/// Returns the plaintext of `sealed`. Fails with `errc::secret_key`, naming
/// the key id, when `keys` is null, lacks that id, or holds another key
/// under it (or the text was changed); with `errc::invalid_argument` when
/// `sealed` is not a sealed text.
[[nodiscard]] caf::expected<std::string> open(const key_ring* keys, std::string_view sealed,
                                              std::string_view context);

/// Returns the id of the key that sealed `sealed` (empty when malformed).
std::string_view key_id_of(std::string_view sealed);

} // namespace stepwise::secret_box
