#pragma once

#include <functional>
#include <string>

#include "engine/engine.hpp"
#include "http/server.hpp"

namespace stepwise::test {

/// The basic credentials the test broker takes (user and password).
inline constexpr const char* broker_user = "platform";
inline constexpr const char* broker_password = "broker-password-1";

/// Writes the broker's credentials file into `dir`; returns its path.
std::string write_broker_credentials(const std::string& dir);

/// Returns a fixture hook that mounts the service broker (credentials in
/// `dir`; it finds no instance: for tests of routes and refusals).
std::function<void(http::server&, engine&)> broker_mount(const std::string& dir);

} // namespace stepwise::test
