#include "engine/secret_box.hpp"

#include <memory>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "engine/errc.hpp"

namespace stepwise::secret_box {

namespace {

constexpr std::string_view version = "1:";
constexpr size_t nonce_size = 12;
constexpr size_t tag_size = 16;

struct ctx_deleter {
  void operator()(EVP_CIPHER_CTX* c) const noexcept {
    EVP_CIPHER_CTX_free(c);
  }
};

using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, ctx_deleter>;

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// The authenticated data: a fixed label, so that no other use of the same
// key can produce a text that opens here, and the owner of the value.
std::string aad_of(std::string_view context) {
  std::string out = "stepwise secret 1\n";
  out.append(context.data(), context.size());
  return out;
}

std::string base64(const std::vector<unsigned char>& raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  auto n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), raw.data(),
                           static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool unbase64(std::string_view text, std::vector<unsigned char>& out) {
  if (text.empty() || text.size() % 4 != 0)
    return false;
  out.resize(text.size() / 4 * 3);
  auto n = EVP_DecodeBlock(out.data(), bytes_of(text), static_cast<int>(text.size()));
  if (n < 0)
    return false;
  // EVP_DecodeBlock decodes padding as zero bytes.
  size_t pad = text[text.size() - 1] == '=' ? (text[text.size() - 2] == '=' ? 2 : 1) : 0;
  out.resize(static_cast<size_t>(n) - pad);
  return true;
}

caf::error unreadable(std::string_view id, const std::string& why) {
  return make_error(errc::secret_key,
                    "cannot open a secret value sealed with key '" + std::string{id} + "': " + why);
}

} // namespace

caf::expected<std::string> seal(const key_ring& keys, std::string_view plaintext,
                                std::string_view context) {
  auto& key = keys.current();
  std::vector<unsigned char> out(nonce_size + plaintext.size() + tag_size);
  if (RAND_bytes(out.data(), nonce_size) != 1)
    return make_error(errc::secret_key,
                      "sealing a secret value: OpenSSL's random generator failed");
  cipher_ctx ctx{EVP_CIPHER_CTX_new()};
  auto aad = aad_of(context);
  int len = 0;
  int tail = 0;
  if (!ctx
      || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), out.data())
           != 1
      || EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes_of(aad), static_cast<int>(aad.size()))
           != 1
      || EVP_EncryptUpdate(ctx.get(), out.data() + nonce_size, &len, bytes_of(plaintext),
                           static_cast<int>(plaintext.size()))
           != 1
      || EVP_EncryptFinal_ex(ctx.get(), out.data() + nonce_size + len, &tail) != 1
      || EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, tag_size,
                             out.data() + nonce_size + plaintext.size())
           != 1)
    return make_error(errc::secret_key,
                      "sealing a secret value with key '" + key.id + "' failed in OpenSSL");
  std::string sealed{version};
  sealed += key.id;
  sealed += ':';
  sealed += base64(out);
  return sealed;
}

std::string_view key_id_of(std::string_view sealed) {
  if (sealed.substr(0, version.size()) != version)
    return {};
  auto rest = sealed.substr(version.size());
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || !valid_key_id(rest.substr(0, colon)))
    return {};
  return rest.substr(0, colon);
}

caf::expected<std::string> open(const key_ring* keys, std::string_view sealed,
                                std::string_view context) {
  auto id = key_id_of(sealed);
  std::vector<unsigned char> raw;
  if (id.empty() || !unbase64(sealed.substr(version.size() + id.size() + 1), raw)
      || raw.size() < nonce_size + tag_size)
    return make_error(errc::invalid_argument, "a sealed secret value is malformed");
  if (keys == nullptr)
    return unreadable(id, "no key ring is configured (--secret-key-file)");
  auto key = keys->find(id);
  if (key == nullptr) {
    std::string have;
    for (auto& k : keys->ids())
      have += (have.empty() ? "" : ", ") + k;
    return unreadable(id,
                      "the key ring has no key '" + std::string{id} + "' (it has: " + have + ")");
  }
  auto ct_size = raw.size() - nonce_size - tag_size;
  std::string plain(ct_size, '\0');
  cipher_ctx ctx{EVP_CIPHER_CTX_new()};
  auto aad = aad_of(context);
  int len = 0;
  int tail = 0;
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  if (!ctx
      || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key->bytes.data(), raw.data())
           != 1
      || EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes_of(aad), static_cast<int>(aad.size()))
           != 1
      || EVP_DecryptUpdate(ctx.get(), out, &len, raw.data() + nonce_size, static_cast<int>(ct_size))
           != 1
      || EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, tag_size,
                             raw.data() + nonce_size + ct_size)
           != 1
      || EVP_DecryptFinal_ex(ctx.get(), out + len, &tail) != 1) {
    OPENSSL_cleanse(plain.data(), plain.size());
    return unreadable(id, "the key ring's key '" + std::string{id}
                            + "' is not the one it was sealed with (or the stored value "
                              "was changed)");
  }
  return plain;
}

} // namespace stepwise::secret_box
