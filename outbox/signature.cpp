#include "outbox/signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace stepwise::outbox {

std::string hmac_sha256_hex(std::string_view key, std::string_view body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &len);
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out += digits[mac[i] >> 4];
    out += digits[mac[i] & 0x0f];
  }
  return out;
}

std::string signature_header(std::string_view key, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(key, body);
}

} // namespace stepwise::outbox
