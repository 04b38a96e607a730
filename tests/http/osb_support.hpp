#pragma once

#include <functional>
#include <string>

#include "engine/engine.hpp"
#include "http/server.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

namespace stepwise::test {

/// The basic credentials the test broker takes (user and password).
inline constexpr const char* broker_user = "platform";
inline constexpr const char* broker_password = "broker-password-1";

/// Writes the broker's credentials file into `dir`; returns its path.
std::string write_broker_credentials(const std::string& dir);

/// Returns a fixture hook that mounts the service broker (credentials in
/// `dir`; it finds no instance: for tests of routes and refusals).
std::function<void(http::server&, engine&)> broker_mount(const std::string& dir);

/// The broker's service and plan ids (http/osb_catalog.cpp).
inline constexpr const char* osb_tosca_plan = "5d2e8f61-0b7c-4a93-9e4d-2c6f1a8b3e21";
inline constexpr const char* osb_heat_plan = "7a4c1e93-2f5b-4d08-b6a1-9e3d5c7f2b42";

/// A `stepwise serve --osb` child with the simulated cloud, on SQLite in a
/// directory of its own (`dir/sw.db`) or on the store `store_flags` name
/// (`--store URI --secret-key-file FILE`).
struct broker_process {
  temp_dir dir;
  child srv;
  int port = 0;

  explicit broker_process(const std::vector<std::string>& store_flags = {});

  /// Sends `method target` with the broker's headers (no version header
  /// when `version` is null, no credentials when `password` is).
  reply call(const std::string& method, const std::string& target, const std::string& body = "",
             const char* version = "2.17", const char* password = broker_password) const;

  /// Polls `target` (a last_operation) until it is no longer in progress
  /// (bounded: 30 s); returns the state.
  std::string settle(const std::string& target) const;
};

/// Checks `r` against our OpenAPI document's `method path`.
void osb_documented(const reply& r, const std::string& path, const std::string& method);

} // namespace stepwise::test
