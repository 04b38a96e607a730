// The real binary's front doors: it will not serve an address other than
// loopback without tokens, reads its token file again on SIGHUP, never
// logs a token, serves HTTPS that the CLI reaches with a token, and
// stepwise-bench --via http takes a token too.

#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/infra/tls_files.hpp"

using namespace stepwise::test;
using steady = std::chrono::steady_clock;

namespace {

constexpr const char* first_token = "first-token-4f1c2a9b7e";
constexpr const char* second_token = "second-token-8d3e6b1a5c";

std::string tokens_file(const std::string& dir, const std::string& token) {
  auto path = dir + "/tokens";
  std::ofstream(path) << "write ops " << token << "\n";
  return path;
}

// `stepwise serve` on a free loopback port with a store in `dir` and the
// write token `first_token`, then `extra`.
std::vector<std::string> serve_with_token(const temp_dir& dir, std::vector<std::string> extra) {
  std::vector<std::string> args{stepwise_binary(), "serve",
                                "--listen",        "127.0.0.1:0",
                                "--store",         "sqlite:" + dir.path + "/sw.db",
                                "--auth-tokens",   tokens_file(dir.path, first_token)};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int status_with(int port, const char* token) {
  httplib::Client c("127.0.0.1", port);
  httplib::Headers hs;
  if (token != nullptr)
    hs.emplace("Authorization", std::string("Bearer ") + token);
  auto r = c.Get("/api/v1/operations", hs);
  return r ? r->status : 0;
}

} // namespace

TEST_CASE("serve refuses an exposed address without tokens", "[http][process][auth]") {
  temp_dir dir;
  auto store = "sqlite:" + dir.path + "/sw.db";
  {
    child srv({stepwise_binary(), "serve", "--listen", "0.0.0.0:0", "--store", store});
    CHECK(srv.wait_exit(std::chrono::seconds(20)) == 2);
    srv.await_output("--insecure-no-auth", std::chrono::seconds(5));
    INFO(srv.err);
    CHECK(srv.err.find("--auth-tokens FILE") != std::string::npos);
    CHECK(srv.err.find("--insecure-no-auth") != std::string::npos);
  }
  child srv(
    {stepwise_binary(), "serve", "--listen", "0.0.0.0:0", "--store", store, "--insecure-no-auth"});
  INFO(srv.err);
  CHECK(srv.await_port(std::chrono::seconds(20)) > 0);
  CHECK(srv.err.find("(every address, store") != std::string::npos);
}

TEST_CASE("serve reads its tokens again on SIGHUP and never logs them", "[http][process][auth]") {
  temp_dir dir;
  child srv(serve_with_token(dir, {"--log-level", "debug"}));
  auto path = dir.path + "/tokens";
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  CHECK(status_with(port, nullptr) == 401);
  CHECK(status_with(port, first_token) == 200);
  CHECK(status_with(port, second_token) == 401);
  tokens_file(dir.path, second_token);
  REQUIRE(::kill(srv.pid, SIGHUP) == 0);
  CHECK(srv.await_output("SIGHUP: read 1 tokens", std::chrono::seconds(10)));
  CHECK(status_with(port, second_token) == 200);
  CHECK(status_with(port, first_token) == 401);
  // A broken file keeps the tokens in use.
  std::ofstream(path) << "write ops tooshort\n";
  REQUIRE(::kill(srv.pid, SIGHUP) == 0);
  CHECK(srv.await_output("kept the tokens in use", std::chrono::seconds(10)));
  CHECK(status_with(port, second_token) == 200);
  REQUIRE(::kill(srv.pid, SIGTERM) == 0);
  CHECK(srv.wait_exit(std::chrono::seconds(30)) == 0);
  srv.await_output("stopped", std::chrono::seconds(5));
  CHECK(srv.err.find("GET /api/v1/operations 401") != std::string::npos);
  for (auto secret : {first_token, second_token, "tooshort"})
    CHECK(srv.err.find(secret) == std::string::npos);
}

TEST_CASE("serve speaks HTTPS; the CLI reaches it with a CA and a token", "[http][process][tls]") {
  tls_files tls;
  REQUIRE(tls.ok);
  temp_dir dir;
  child srv(serve_with_token(dir, {"--tls-cert", tls.cert, "--tls-key", tls.key}));
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  CHECK(srv.err.find("listening on https://") != std::string::npos);
  auto url = "https://127.0.0.1:" + std::to_string(port);
  httplib::SSLClient c("127.0.0.1", port);
  c.set_ca_cert_path(tls.cert.c_str());
  c.enable_server_certificate_verification(true);
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  // Plain HTTP on the TLS port gets no answer.
  httplib::Client plain("127.0.0.1", port);
  plain.set_read_timeout(2, 0);
  auto r = plain.Get("/healthz");
  CHECK((!r || r->status != 200));
  auto started =
    run_cli("ops start demo --url " + url + " --ca " + tls.cert + " --token " + first_token);
  INFO(started);
  CHECK(started.find("started op-") != std::string::npos);
  CHECK(run_cli("ops list --url " + url + " --insecure --token " + first_token).find("demo")
        != std::string::npos);
  auto untrusted = run_cli("ops list --url " + url + " --token " + first_token);
  CHECK(untrusted.find("--ca FILE") != std::string::npos);
  auto no_token = run_cli("ops list --url " + url + " --ca " + tls.cert);
  CHECK(no_token.find("401 unauthorized") != std::string::npos);
  CHECK(no_token.find("--token") != std::string::npos);
  // A refused POST: the server closes the connection unread, and the CLI
  // still says why (it once died of SIGPIPE here, silently).
  auto refused =
    run_cli("ops start demo --url " + url + " --ca " + tls.cert + " --token not-the-token-at-all");
  CHECK(refused.find("401 unauthorized") != std::string::npos);
  ::setenv("STEPWISE_TOKEN", first_token, 1);
  auto from_env = run_cli("workflows --url " + url + " --ca " + tls.cert);
  ::unsetenv("STEPWISE_TOKEN");
  CHECK(from_env.find("provision_runtime") != std::string::npos);
}

TEST_CASE("stepwise-bench --via http takes a token", "[http][process][auth]") {
  auto bench = std::getenv("STEPWISE_BENCH_BIN");
  REQUIRE(bench != nullptr);
  temp_dir dir;
  child srv(serve_with_token(dir, {"--workflows", "bench"}));
  auto port = srv.await_port(std::chrono::seconds(20));
  INFO(srv.err);
  REQUIRE(port > 0);
  auto run = std::string(bench)
             + " --workload steps --n 20 --via http --url http://127.0.0.1:" + std::to_string(port);
  auto with_flag = run_command(run + " --token " + first_token);
  INFO(with_flag);
  CHECK(with_flag.find("\"completed\":20,\"errors\":0") != std::string::npos);
  auto with_env = run_command("STEPWISE_TOKEN=" + std::string(first_token) + " " + run);
  CHECK(with_env.find("\"completed\":20,\"errors\":0") != std::string::npos);
  auto without = run_command(run);
  CHECK(without.find("\"completed\":0") != std::string::npos);
  CHECK(without.find("401") != std::string::npos);
}

TEST_CASE("serve refuses TLS files it cannot use", "[http][process][tls]") {
  temp_dir dir;
  auto bogus = dir.path + "/bogus.pem";
  std::ofstream(bogus) << "not a certificate\n";
  child srv({stepwise_binary(), "serve", "--listen", "127.0.0.1:0", "--store",
             "sqlite:" + dir.path + "/sw.db", "--tls-cert", bogus, "--tls-key", bogus});
  CHECK(srv.wait_exit(std::chrono::seconds(20)) == 1);
  srv.await_output("cannot serve HTTPS", std::chrono::seconds(5));
  CHECK(srv.err.find("cannot serve HTTPS") != std::string::npos);
  CHECK(run_cli("serve --tls-cert x.pem").find("--tls-cert and --tls-key go together")
        != std::string::npos);
  CHECK(run_cli("serve --osb").find("--osb-credentials") != std::string::npos);
}
