#include "engine/random_hex.hpp"

#include <random>

namespace stepwise {

std::string random_hex(size_t digits) {
  static constexpr char hex[] = "0123456789abcdef";
  std::random_device rd;
  std::string out;
  out.reserve(digits);
  while (out.size() < digits) {
    auto r = rd();
    for (int i = 0; i < 8 && out.size() < digits; ++i, r >>= 4)
      out += hex[r & 0xf];
  }
  return out;
}

} // namespace stepwise
