#pragma once

#include <string>

namespace stepwise::test {

/// A self-signed certificate for 127.0.0.1 and localhost (EC P-256, valid
/// for a day, also its own CA) and its key, as PEM files in a fresh
/// directory under /tmp that is removed with them at destruction.
/// `ok` is false (and `error` says why) when OpenSSL failed.
struct tls_files {
  tls_files();
  ~tls_files();

  tls_files(const tls_files&) = delete;
  tls_files& operator=(const tls_files&) = delete;

  bool ok = false;
  std::string error;
  std::string dir;
  std::string cert; // also the CA file that trusts it
  std::string key;
};

} // namespace stepwise::test
