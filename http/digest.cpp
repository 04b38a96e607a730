#include "http/digest.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

namespace stepwise::http {

digest sha256(std::string_view text) {
  digest out;
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), out.data());
  return out;
}

bool digests_equal(const digest& a, const digest& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::optional<digest> digest_from_hex(std::string_view hex) {
  digest out;
  if (hex.size() != out.size() * 2)
    return std::nullopt;
  for (size_t i = 0; i < out.size(); ++i) {
    auto hi = hex_digit(hex[2 * i]);
    auto lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  // OpenSSL's decoder takes padded base64 only, as HTTP's Basic scheme sends.
  if (text.size() % 4 != 0)
    return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  auto n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                           reinterpret_cast<const unsigned char*>(text.data()),
                           static_cast<int>(text.size()));
  if (n < 0)
    return std::nullopt;
  // It decodes the padding to zero bytes.
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=')
    ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

} // namespace stepwise::http
