#pragma once

#include <string>
#include <string_view>

namespace stepwise::outbox {

/// Returns HMAC-SHA256 of `body` under `key`, in lower-case hex (OpenSSL).
std::string hmac_sha256_hex(std::string_view key, std::string_view body);

/// Returns the `X-Stepwise-Signature` value of `body`: `sha256=<hex>`.
std::string signature_header(std::string_view key, std::string_view body);

} // namespace stepwise::outbox
