#pragma once
// Three `stepwise serve` processes on one PostgreSQL schema behind HAProxy
// (round robin, health-checked on /readyz), as README.md's "Running
// several servers" configures it: what the tests of several servers
// behind a real load balancer start.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/storage/pg_test_schema.hpp"

namespace stepwise::test {

using namespace std::chrono_literals;

inline constexpr const char* haproxy_path = "/usr/sbin/haproxy";

/// Returns a port nothing listens on now.
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  socklen_t len = sizeof(a);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// The configuration README.md's "Running several servers" shows, for
/// `ports`, listening on `front`.
inline std::string haproxy_config(int front, const std::vector<int>& ports) {
  std::string cfg = "global\n"
                    "  maxconn 4096\n"
                    "defaults\n"
                    "  mode http\n"
                    "  timeout connect 2s\n"
                    "  timeout client 90s\n"
                    "  timeout server 90s\n"
                    "  retries 2\n"
                    "  option redispatch\n"
                    "frontend api\n"
                    "  bind 127.0.0.1:"
                    + std::to_string(front)
                    + "\n"
                      "  default_backend stepwise\n"
                      "backend stepwise\n"
                      "  balance roundrobin\n"
                      "  option httpchk GET /readyz\n"
                      "  http-check expect status 200\n"
                      "  default-server inter 500ms fall 2 rise 1\n";
  for (size_t i = 0; i < ports.size(); ++i)
    cfg += "  server s" + std::to_string(i) + " 127.0.0.1:" + std::to_string(ports[i]) + " check\n";
  return cfg;
}

/// Three servers on `store` and HAProxy in front of them.
struct cluster {
  temp_dir dir;
  std::vector<std::unique_ptr<child>> servers;
  std::vector<int> ports;
  std::unique_ptr<child> balancer;
  int front = 0;

  explicit cluster(const std::string& store) {
    // Every server sharing the database has the same key file.
    auto keys = dir.path + "/stepwise.keys";
    std::ofstream(keys) << "k1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
    REQUIRE(::chmod(keys.c_str(), 0600) == 0);
    for (int i = 0; i < 3; ++i) {
      servers.push_back(std::make_unique<child>(std::vector<std::string>{
        stepwise_binary(), "serve", "--store", store, "--listen", "127.0.0.1:0", "--workflows",
        "demo,bench", "--lease-ttl", "3", "--secret-key-file", keys}));
      auto port = servers.back()->await_port(60s);
      INFO(servers.back()->err);
      REQUIRE(port > 0);
      ports.push_back(port);
    }
    front = free_port();
    auto path = dir.path + "/haproxy.cfg";
    std::ofstream(path) << haproxy_config(front, ports);
    balancer = std::make_unique<child>(std::vector<std::string>{haproxy_path, "-f", path, "-db"});
    // Up once a round of health checks passed: six answers in a row.
    int in_a_row = 0;
    REQUIRE(eventually(
      [&] {
        auto r = to_reply(client().Get("/readyz"));
        in_a_row = r.status == 200 ? in_a_row + 1 : 0;
        return in_a_row >= 6;
      },
      30s));
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", front);
    c.set_read_timeout(90, 0);
    return c;
  }
};

inline reply post(const cluster& c, const std::string& path, const std::string& body = "{}") {
  return to_reply(c.client().Post(path.c_str(), body, "application/json"));
}

inline reply get(const cluster& c, const std::string& path) {
  return to_reply(c.client().Get(path.c_str()));
}

inline std::string state_of(const cluster& c, const std::string& id) {
  auto r = get(c, "/api/v1/operations/" + id);
  return r.status == 200 ? std::string{r.json.at("state").as_string()} : r.body;
}

/// A fresh schema (null: no test database, skip); fails without haproxy.
inline std::unique_ptr<pg_test_schema> schema_with_haproxy() {
  auto schema = pg_schema_or_skip();
  if (schema && ::access(haproxy_path, X_OK) != 0)
    FAIL(haproxy_path << " is missing: tools/install-deps installs it");
  return schema;
}

} // namespace stepwise::test
