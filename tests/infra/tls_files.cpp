#include "tests/infra/tls_files.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace stepwise::test {

namespace {

struct free_key {
  void operator()(EVP_PKEY* p) const {
    EVP_PKEY_free(p);
  }
};

struct free_cert {
  void operator()(X509* p) const {
    X509_free(p);
  }
};

bool add_ext(X509* x, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr)
    return false;
  bool ok = X509_add_ext(x, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

/// Returns a signed certificate for `key`, or null.
std::unique_ptr<X509, free_cert> make_cert(EVP_PKEY* key) {
  std::unique_ptr<X509, free_cert> x{X509_new()};
  if (!x)
    return nullptr;
  auto name = X509_get_subject_name(x.get());
  auto cn = reinterpret_cast<const unsigned char*>("127.0.0.1");
  bool ok = X509_set_version(x.get(), 2) == 1
            && ASN1_INTEGER_set(X509_get_serialNumber(x.get()), 1) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600) != nullptr
            && X509_gmtime_adj(X509_getm_notAfter(x.get()), 86400) != nullptr
            && X509_set_pubkey(x.get(), key) == 1
            && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, -1, -1, 0) == 1
            && X509_set_issuer_name(x.get(), name) == 1
            && add_ext(x.get(), NID_basic_constraints, "critical,CA:TRUE")
            && add_ext(x.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost")
            && X509_sign(x.get(), key, EVP_sha256()) > 0;
  if (!ok)
    return nullptr;
  return x;
}

template <class Write>
bool write_pem(const std::string& path, Write write) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
    return false;
  bool ok = write(f) == 1;
  return std::fclose(f) == 0 && ok;
}

} // namespace

tls_files::tls_files() {
  char tmpl[] = "/tmp/stepwise-tls-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    error = "mkdtemp failed";
    return;
  }
  dir = tmpl;
  cert = dir + "/cert.pem";
  key = dir + "/key.pem";
  std::unique_ptr<EVP_PKEY, free_key> pkey{EVP_EC_gen("P-256")};
  if (!pkey) {
    error = "cannot generate a key";
    return;
  }
  auto x = make_cert(pkey.get());
  if (!x) {
    error = "cannot make the certificate";
    return;
  }
  ok = write_pem(cert, [&](FILE* f) { return PEM_write_X509(f, x.get()); })
       && write_pem(key, [&](FILE* f) {
            return PEM_write_PrivateKey(f, pkey.get(), nullptr, nullptr, 0, nullptr, nullptr);
          });
  if (!ok)
    error = "cannot write the PEM files";
}

tls_files::~tls_files() {
  if (dir.empty())
    return;
  std::remove(cert.c_str());
  std::remove(key.c_str());
  rmdir(dir.c_str());
}

} // namespace stepwise::test
