#include "tests/console/console_session.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

namespace stepwise::test {

bool have_chromium() {
  if (::access(chromium_path, X_OK) == 0)
    return true;
  // The test command installs Chromium: a missing one is a failure, not a
  // pass, unless skipping was asked for.
  if (std::getenv("STEPWISE_SKIP_BROWSER") != nullptr) {
    WARN("SKIPPED (STEPWISE_SKIP_BROWSER): " << chromium_path << " is missing");
    return false;
  }
  FAIL(chromium_path << " is missing: apt-get install chromium (tools/install-deps "
                        "installs it), or set STEPWISE_SKIP_BROWSER=1 to skip the console");
  return false;
}

std::string artifact(const std::string& name) {
  auto dir = std::getenv("STEPWISE_ARTIFACTS");
  return std::string(dir != nullptr ? dir : ".") + "/" + name;
}

std::string js(const std::string& s) {
  return "'" + s + "'";
}

console_session::console_session(bool with_tokens) {
  std::vector<std::string> args{stepwise_binary(),  "serve",
                                "--listen",         "127.0.0.1:0",
                                "--store",          "sqlite:" + dir.path + "/sw.db",
                                "--sim-latency-ms", "100:400",
                                "--log-level",      "debug"};
  if (with_tokens) {
    auto tokens = dir.path + "/tokens";
    std::ofstream(tokens) << "write console " << console_token << "\n";
    args.insert(args.end(), {"--auth-tokens", tokens});
  }
  srv = std::make_unique<child>(std::move(args));
  port = srv->await_port(std::chrono::seconds(20));
  INFO(srv->err);
  REQUIRE(port > 0);
  base = "http://127.0.0.1:" + std::to_string(port);
  b = std::make_unique<browser>(1360, 1000);
  INFO("browser: " << b->error() << "\n" << b->log().substr(0, 4000));
  REQUIRE(b->error().empty());
}

void console_session::sign_in() {
  b->navigate(base + "/ui/");
  REQUIRE(b->wait_for("document.getElementById('token-dialog')?.open === true",
                      std::chrono::seconds(20)));
  b->eval("document.getElementById('token-input').value = " + js(console_token)
          + ";"
            "document.querySelector('#token-form button[type=submit]').click(); true");
  REQUIRE(b->wait_for("!document.getElementById('token-dialog').open"
                      " && !!document.querySelector('#operations tbody')",
                      std::chrono::seconds(20)));
}

httplib::Client console_session::api() const {
  httplib::Client c("127.0.0.1", port);
  c.set_bearer_token_auth(console_token);
  c.set_read_timeout(30);
  return c;
}

std::string console_session::start(const std::string& workflow, const std::string& input) {
  auto c = api();
  auto r = to_reply(c.Post("/api/v1/operations",
                           R"({"workflow":")" + workflow + R"(","input":)" + input + "}",
                           "application/json"));
  REQUIRE(r.status == 201);
  return std::string(r.json.at("id").as_string());
}

void console_session::show(const std::string& id) {
  b->eval("location.hash = " + js("#/operations/" + id) + "; true");
}

} // namespace stepwise::test
