#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

namespace stepwise {

/// One key of a key ring: 32 bytes for AES-256-GCM, and the id stored with
/// every value it seals. The bytes are wiped when it is destroyed.
struct secret_key {
  std::string id;
  std::array<unsigned char, 32> bytes{};

  secret_key() = default;
  secret_key(const secret_key&) = default;
  secret_key& operator=(const secret_key&) = default;
  ~secret_key();
};

/// The keys that seal secret values (`engine_config::secret_keys`,
/// `stepwise serve --secret-key-file`): the first one seals, every one
/// opens. Rotation adds a new first key; the old ones stay until
/// `stepwise secrets rotate` has sealed every stored value again.
///
/// Immutable once made, so one ring is shared by every thread.
class key_ring {
public:
  /// Parses a key file: one `ID BASE64` a line, where BASE64 encodes 32
  /// bytes and ID is 1 to 64 of `A-Z a-z 0-9 . _ -`; blank lines and `#`
  /// comments are skipped. `source` names the text in errors (file:line),
  /// which never quote a key.
  [[nodiscard]] static caf::expected<key_ring> parse(std::string_view text,
                                                     const std::string& source);

  /// Returns the ring of `keys`, the first one sealing. Fails on none, on a
  /// malformed id and on an id given twice.
  [[nodiscard]] static caf::expected<key_ring> of(std::vector<secret_key> keys);

  /// Returns a new random key (OpenSSL's generator) named `id`.
  [[nodiscard]] static caf::expected<secret_key> generate(std::string id);

  /// Returns `key` as a key file line, `ID BASE64\n`.
  static std::string line_of(const secret_key& key);

  /// Returns the key that seals new values.
  const secret_key& current() const {
    return keys_.front();
  }

  /// Returns the key named `id`, or null.
  const secret_key* find(std::string_view id) const;

  /// Returns the ids of every key, the sealing one first.
  std::vector<std::string> ids() const;

private:
  key_ring() = default;

  std::vector<secret_key> keys_;
};

/// Returns whether `id` may name a key: 1 to 64 of `A-Z a-z 0-9 . _ -`.
bool valid_key_id(std::string_view id);

} // namespace stepwise
