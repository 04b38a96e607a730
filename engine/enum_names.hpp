#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace stepwise {

/// The names of an enum's values as strings that live as long as the
/// program: what its `to_string` returns as `const std::string&`, which
/// CAF's `deep_to_string` (and so `caf::aout`) prints bare, a view cannot
/// dangle from, and no call allocates.
template <size_t N>
std::array<std::string, N> enum_names(const std::array<std::string_view, N>& views) {
  std::array<std::string, N> out;
  for (size_t i = 0; i < N; ++i)
    out[i] = std::string{views[i]};
  return out;
}

} // namespace stepwise
