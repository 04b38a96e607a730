#pragma once

#include <memory>
#include <string>

#include "tests/console/browser.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

namespace stepwise::test {

/// The write token of the console tests' server.
inline constexpr const char* console_token = "console-write-token-5e8a1f3c";

/// A real `stepwise serve` that asks for tokens, unless `with_tokens` is
/// false (the simulated cloud's tasks take 100 to 400 ms), and headless
/// Chromium next to it.
struct console_session {
  temp_dir dir;
  std::unique_ptr<child> srv;
  int port = 0;
  std::string base;
  std::unique_ptr<browser> b;

  explicit console_session(bool with_tokens = true);

  /// Opens the console and gives it the token (REQUIREs that it worked).
  void sign_in();

  /// Returns a client of the server's API with the console's token.
  httplib::Client api() const;

  /// Starts an operation through the API; returns its id.
  std::string start(const std::string& workflow, const std::string& input);

  /// Opens operation `id`'s page as a link does (a DevTools navigation
  /// would load the console again).
  void show(const std::string& id);
};

/// Returns whether Debian's Chromium is installed; warns that the test is
/// skipped when it is not.
bool have_chromium();

/// Returns where a screenshot named `name` goes (STEPWISE_ARTIFACTS).
std::string artifact(const std::string& name);

/// Returns `s` as a JavaScript string literal (`s` holds no quote or
/// backslash).
std::string js(const std::string& s);

} // namespace stepwise::test
