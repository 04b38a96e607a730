#include "tests/http/osb_support.hpp"

#include <fstream>

#include <catch2/catch.hpp>

#include "http/osb.hpp"

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

} // namespace stepwise::test
