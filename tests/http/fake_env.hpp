#pragma once

#include <map>
#include <optional>
#include <string>

#include "tools/serve_options.hpp"

namespace stepwise::test {

/// An environment of exactly `vars`, for option parsing.
inline tools::env_reader fake_env(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto i = vars.find(name);
    if (i == vars.end())
      return std::nullopt;
    return i->second;
  };
}

} // namespace stepwise::test
