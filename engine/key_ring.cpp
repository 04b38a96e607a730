#include "engine/key_ring.hpp"

#include <sstream>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "engine/errc.hpp"

namespace stepwise {

namespace {

caf::error bad_line(const std::string& source, int no, const std::string& what) {
  return make_error(errc::invalid_argument, source + ":" + std::to_string(no) + ": " + what);
}

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+'
         || c == '/';
}

/// Decodes standard base64 of exactly 32 bytes (44 characters, one `=`).
bool decode_key(std::string_view text, std::array<unsigned char, 32>& out) {
  if (text.size() != 44 || text[43] != '=')
    return false;
  for (size_t i = 0; i < 43; ++i)
    if (!is_base64_char(text[i]))
      return false;
  unsigned char buf[33];
  // Decodes the padding as a zero byte: 33 bytes, the last one padding.
  if (EVP_DecodeBlock(buf, reinterpret_cast<const unsigned char*>(text.data()), 44) != 33)
    return false;
  std::copy(buf, buf + 32, out.begin());
  OPENSSL_cleanse(buf, sizeof(buf));
  return true;
}

} // namespace

secret_key::~secret_key() {
  OPENSSL_cleanse(bytes.data(), bytes.size());
}

bool valid_key_id(std::string_view id) {
  if (id.empty() || id.size() > 64)
    return false;
  for (char c : id)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'
          || c == '_' || c == '-'))
      return false;
  return true;
}

caf::expected<key_ring> key_ring::parse(std::string_view text, const std::string& source) {
  std::vector<secret_key> keys;
  std::istringstream in{std::string{text}};
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    std::istringstream fields{line.substr(0, line.find('#'))};
    std::string id;
    std::string encoded;
    std::string extra;
    if (!(fields >> id))
      continue;
    // The line is never quoted: it holds a key.
    if (!(fields >> encoded) || (fields >> extra))
      return bad_line(source, no, "expected 'ID BASE64-KEY' (2 fields)");
    if (!valid_key_id(id))
      return bad_line(source, no, "a key id is 1 to 64 of A-Z a-z 0-9 . _ -");
    secret_key key;
    key.id = id;
    if (!decode_key(encoded, key.bytes))
      return bad_line(source, no,
                      "the key of '" + id
                        + "' is not the base64 of 32 bytes (make one with "
                          "`openssl rand -base64 32`)");
    OPENSSL_cleanse(encoded.data(), encoded.size());
    OPENSSL_cleanse(line.data(), line.size());
    keys.push_back(std::move(key));
  }
  if (keys.empty())
    return make_error(errc::invalid_argument, source + ": no key (expected 'ID BASE64-KEY' lines)");
  auto ring = of(std::move(keys));
  if (!ring)
    return make_error(errc::invalid_argument, source + ": " + message_of(ring.error()));
  return ring;
}

caf::expected<key_ring> key_ring::of(std::vector<secret_key> keys) {
  if (keys.empty())
    return make_error(errc::invalid_argument, "a key ring needs a key");
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!valid_key_id(keys[i].id))
      return make_error(errc::invalid_argument, "invalid key id '" + keys[i].id + "'");
    for (size_t j = 0; j < i; ++j)
      if (keys[j].id == keys[i].id)
        return make_error(errc::invalid_argument, "key id '" + keys[i].id + "' is given twice");
  }
  key_ring out;
  out.keys_ = std::move(keys);
  return out;
}

caf::expected<secret_key> key_ring::generate(std::string id) {
  if (!valid_key_id(id))
    return make_error(errc::invalid_argument, "invalid key id '" + id + "'");
  secret_key key;
  key.id = std::move(id);
  if (RAND_bytes(key.bytes.data(), static_cast<int>(key.bytes.size())) != 1)
    return make_error(errc::invalid_argument, "OpenSSL's random generator failed");
  return key;
}

std::string key_ring::line_of(const secret_key& key) {
  unsigned char text[45];
  EVP_EncodeBlock(text, key.bytes.data(), static_cast<int>(key.bytes.size()));
  std::string out = key.id + " " + std::string(reinterpret_cast<char*>(text), 44) + "\n";
  OPENSSL_cleanse(text, sizeof(text));
  return out;
}

const secret_key* key_ring::find(std::string_view id) const {
  for (auto& k : keys_)
    if (k.id == id)
      return &k;
  return nullptr;
}

std::vector<std::string> key_ring::ids() const {
  std::vector<std::string> out;
  for (auto& k : keys_)
    out.push_back(k.id);
  return out;
}

} // namespace stepwise
