#pragma once

// Real `stepwise serve` processes on one PostgreSQL database, for the
// tests of several servers as one service.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

namespace stepwise::test {

/// A folder with the key file every server sharing the database needs.
struct key_dir {
  temp_dir dir;
  std::string keys = dir.path + "/stepwise.keys";

  key_dir() {
    std::ofstream(keys) << "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
    REQUIRE(::chmod(keys.c_str(), 0600) == 0);
  }
};

/// One server and the port it listens on.
struct pg_server {
  std::unique_ptr<child> proc;
  int port = 0;

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(60, 0);
    return c;
  }

  /// Returns a sample of its /metrics (`name` with its labels as written),
  /// or -1.
  double metric(const std::string& name) const {
    auto r = to_reply(client().Get("/metrics"));
    auto at = r.body.find("\n" + name + " ");
    if (r.status != 200 || at == std::string::npos)
      return -1;
    return std::stod(r.body.substr(at + name.size() + 2));
  }

  /// Returns how many operations the store says it drives, or -1.
  int64_t held() const {
    auto r = to_reply(client().Get("/api/v1/cluster"));
    if (r.status != 200)
      return -1;
    auto self = r.json.at("self").as_string();
    for (auto& s : r.json.at("servers").as_array())
      if (s.at("id").as_string() == self)
        return s.at("operations").as_int64();
    return -1;
  }
};

/// Starts a server on `store` with `keys`, the bench and demo workflows,
/// and `extra` arguments.
inline pg_server start_pg_server(const std::string& store, const std::string& keys,
                                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{stepwise_binary(),   "serve",       "--store",     store,
                                "--listen",          "127.0.0.1:0", "--workflows", "demo,bench",
                                "--secret-key-file", keys};
  args.insert(args.end(), extra.begin(), extra.end());
  pg_server s;
  s.proc = std::make_unique<child>(std::move(args));
  s.port = s.proc->await_port(std::chrono::seconds(60));
  INFO(s.proc->err);
  REQUIRE(s.port > 0);
  return s;
}

} // namespace stepwise::test
