#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Sets one field of `serve_options` from its text; returns what is wrong
/// with the text (without quoting secrets), or nothing.
using option_setter = std::optional<std::string> (*)(serve_options&, const std::string&);

/// One setting of `stepwise serve`: its flag, variable, file key and help.
struct option_spec {
  const char* name;
  const char* env;
  const char* arg;
  const char* help;
  option_setter set;
  /// A switch: `--name` alone means true (`--name=false` turns it off);
  /// the environment and the file say `true` or `false`.
  bool is_switch = false;
};

/// Returns the items of a comma-separated list, or nothing when one is
/// empty.
std::optional<std::vector<std::string>> split_list(const std::string& v);

/// The engine's settings (engine_options.cpp).
const std::vector<option_spec>& engine_specs();

/// The setters that parsing treats apart: `--config` names the file read
/// first, and `--sink` repeats (flags replace the environment's sinks).
std::optional<std::string> set_config(serve_options& o, const std::string& v);
std::optional<std::string> set_sink(serve_options& o, const std::string& v);

/// The settings of the front doors (authentication, TLS, the service
/// broker) and of the simulated cloud's locations, kept apart from the
/// engine's (serve_options.cpp).
const std::vector<option_spec>& front_door_specs();

/// Returns what is wrong with the combination of settings (a TLS key
/// without its certificate, a broker without credentials, an exposed
/// address without tokens, ...), or nothing.
std::optional<std::string> check_front_doors(const serve_options& o);

} // namespace stepwise::tools
