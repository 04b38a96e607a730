// The front doors' settings of stepwise serve: switches, files, the
// simulated cloud's locations, and the combinations that are refused.

#include <map>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/http/fake_env.hpp"
#include "tools/serve_options.hpp"

using namespace stepwise;
using namespace stepwise::tools;
using stepwise::test::fake_env;

namespace {

std::string refusal(std::vector<std::string> args) {
  auto o = parse_serve_options(args, fake_env({}));
  REQUIRE_FALSE(o);
  return message_of(o.error());
}

} // namespace

TEST_CASE("front door flags: switches, files and locations", "[cli][auth]") {
  auto o = parse_serve_options({"--auth-tokens", "/etc/sw/tokens", "--metrics-auth",
                                "--tls-cert=c.pem", "--tls-key", "k.pem", "--osb",
                                "--osb-credentials", "b.txt", "--sim-locations", "eu-1,us-2,eu-1"},
                               fake_env({}));
  REQUIRE(o);
  CHECK(o->auth_tokens == "/etc/sw/tokens");
  CHECK(o->metrics_auth);
  CHECK(o->osb);
  CHECK(o->osb_credentials == "b.txt");
  CHECK(o->sim_locations == std::vector<std::string>{"eu-1", "us-2"});
  auto s = o->server_config();
  CHECK(s.metrics_auth);
  CHECK(s.tls_cert == "c.pem");
  CHECK(s.tls_key == "k.pem");
  auto d = parse_serve_options({}, fake_env({{"STEPWISE_INSECURE_NO_AUTH", "true"}}));
  REQUIRE(d);
  CHECK(d->insecure_no_auth);
  CHECK(d->sim_locations == std::vector<std::string>{"default", "dc1"});
  auto off = parse_serve_options({"--metrics-auth=false"}, fake_env({}));
  REQUIRE(off);
  CHECK_FALSE(off->metrics_auth);
}

TEST_CASE("front door flags that do not go together are refused", "[cli][auth]") {
  CHECK(refusal({"--tls-key", "k.pem"}).find("go together") != std::string::npos);
  CHECK(refusal({"--osb"}).find("--osb-credentials") != std::string::npos);
  CHECK(refusal({"--osb-credentials", "b"}).find("add --osb") != std::string::npos);
  CHECK(refusal({"--metrics-auth"}).find("--auth-tokens") != std::string::npos);
  CHECK(refusal({"--osb=maybe"}).find("true or false") != std::string::npos);
  CHECK(refusal({"--sim-locations", "a,,b"}).find("comma-separated") != std::string::npos);
  CHECK(refusal({"--auth-tokens="}).find("must name a file") != std::string::npos);
}

TEST_CASE("only loopback addresses are served without tokens", "[cli][auth]") {
  auto exposure = [](std::vector<std::string> args) {
    auto o = parse_serve_options(args, fake_env({}));
    REQUIRE(o);
    return check_exposure(*o);
  };
  CHECK_FALSE(exposure({}));
  CHECK_FALSE(exposure({"--listen", "127.0.0.2:80"}));
  CHECK_FALSE(exposure({"--listen", "[::1]:80"}));
  CHECK_FALSE(exposure({"--listen", "localhost:80"}));
  auto refused = exposure({"--listen", "0.0.0.0:8080"});
  REQUIRE(refused);
  CHECK(refused->find("--auth-tokens FILE") != std::string::npos);
  CHECK(refused->find("openssl rand -hex 24") != std::string::npos);
  CHECK_FALSE(exposure({"--listen", "0.0.0.0:8080", "--auth-tokens", "t"}));
  CHECK_FALSE(exposure({"--listen", "10.1.2.3:8080", "--insecure-no-auth"}));
}

TEST_CASE("serve --help shows the front door flags", "[cli][auth]") {
  auto help = serve_help();
  for (auto flag : {"--auth-tokens FILE", "--metrics-auth\n", "--insecure-no-auth\n",
                    "--tls-cert FILE", "--tls-key FILE", "--osb\n", "--osb-credentials FILE",
                    "--sim-locations", "STEPWISE_AUTH_TOKENS", "SIGHUP"})
    CHECK_THAT(help, Catch::Contains(flag));
}
