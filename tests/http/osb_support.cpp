#include "tests/http/osb_support.hpp"

#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "http/openapi.hpp"
#include "http/osb.hpp"
#include "tests/http/openapi_check.hpp"

namespace stepwise::test {

std::string write_broker_credentials(const std::string& dir) {
  auto path = dir + "/broker-credentials";
  std::ofstream(path) << "# the platform's account\n"
                      << broker_user << ":" << broker_password << "\n";
  return path;
}

std::function<void(http::server&, engine&)> broker_mount(const std::string& dir) {
  auto path = write_broker_credentials(dir);
  return [path](http::server& srv, engine& eng) {
    auto creds = http::basic_credentials::open(path);
    REQUIRE(creds);
    http::osb_context ctx;
    ctx.eng = eng;
    ctx.find_by_key = [](const std::string&) -> caf::expected<std::optional<operation>> {
      return std::optional<operation>{};
    };
    ctx.credentials = *creds;
    http::add_osb_routes(srv.routes(), std::move(ctx));
  };
}

namespace {

std::vector<std::string> broker_args(const std::string& dir,
                                     const std::vector<std::string>& store_flags) {
  std::vector<std::string> args{stepwise_binary(),
                                "serve",
                                "--listen",
                                "127.0.0.1:0",
                                "--osb",
                                "--osb-credentials",
                                write_broker_credentials(dir),
                                "--sim-latency-ms",
                                "20:60",
                                "--log-level",
                                "debug"};
  if (store_flags.empty())
    args.insert(args.end(), {"--store", "sqlite:" + dir + "/sw.db"});
  args.insert(args.end(), store_flags.begin(), store_flags.end());
  return args;
}

} // namespace

broker_process::broker_process(const std::vector<std::string>& store_flags)
  : srv(broker_args(dir.path, store_flags)) {
  port = srv.await_port(std::chrono::seconds(20));
}

reply broker_process::call(const std::string& method, const std::string& target,
                           const std::string& body, const char* version,
                           const char* password) const {
  httplib::Client c("127.0.0.1", port);
  if (password != nullptr)
    c.set_basic_auth(broker_user, password);
  httplib::Headers hs;
  if (version != nullptr)
    hs.emplace("X-Broker-API-Version", version);
  if (method == "GET")
    return to_reply(c.Get(target, hs));
  if (method == "DELETE")
    return to_reply(c.Delete(target, hs));
  if (method == "PATCH")
    return to_reply(c.Patch(target, hs, body, "application/json"));
  return to_reply(c.Put(target, hs, body, "application/json"));
}

std::string broker_process::settle(const std::string& target) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    auto r = call("GET", target);
    REQUIRE(r.status == 200);
    auto state = std::string(r.json.at("state").as_string());
    if (state != "in progress" || std::chrono::steady_clock::now() > deadline)
      return state;
    // A poll's pace, as a platform's: the operation runs in the child.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void osb_documented(const reply& r, const std::string& path, const std::string& method) {
  auto& doc = http::openapi_document();
  validator val{doc};
  check_documented(val, doc, path, method, r);
}

} // namespace stepwise::test
