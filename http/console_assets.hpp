#pragma once

#include <string_view>
#include <vector>

namespace stepwise::http {

/// One file of the web console, compiled into the binary.
struct console_asset {
  /// The file name under `/ui/` (`app.js`).
  const char* name;
  const char* content_type;
  std::string_view body;
};

/// Returns every file of the console (generated from `web/` at build
/// time by `web/embed_assets.cpp`).
const std::vector<console_asset>& console_assets();

} // namespace stepwise::http
