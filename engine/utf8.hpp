#pragma once

#include <cstddef>
#include <string_view>

/// UTF-8 checks shared by the writers that must never store malformed
/// text (`json_text`, `pg_array`): PostgreSQL refuses it and fails the
/// whole batch, again on every retry.
namespace stepwise::utf8 {

/// U+FFFD, written in place of each byte that does not start a valid
/// sequence.
constexpr std::string_view replacement = "\xEF\xBF\xBD";

/// Returns the length of the valid UTF-8 sequence at the start of `s`, or
/// 0 when there is none (overlong forms, surrogates and code points past
/// U+10FFFF are invalid, as RFC 3629 says). An ASCII byte, NUL included,
/// is a sequence of length 1. Inline: the writers call it per character.
inline size_t sequence_length(std::string_view s) noexcept {
  if (s.empty())
    return 0;
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i < s.size() && byte(i) >= lo && byte(i) <= hi;
  };
  auto b0 = byte(0);
  if (b0 < 0x80)
    return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    return cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    // E0 would allow overlong forms, ED surrogates.
    auto lo = static_cast<unsigned char>(b0 == 0xE0 ? 0xA0 : 0x80);
    auto hi = static_cast<unsigned char>(b0 == 0xED ? 0x9F : 0xBF);
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    // F0 would allow overlong forms, F4 code points past U+10FFFF.
    auto lo = static_cast<unsigned char>(b0 == 0xF0 ? 0x90 : 0x80);
    auto hi = static_cast<unsigned char>(b0 == 0xF4 ? 0x8F : 0xBF);
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

} // namespace stepwise::utf8
