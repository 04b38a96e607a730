// Three servers on one PostgreSQL behind a real load balancer (HAProxy,
// round robin, health-checked on /readyz): every control request succeeds
// whichever server it reaches, and its answer already shows what it did.
// Skips without STEPWISE_TEST_PG_URI; fails without haproxy (the test
// command installs it).
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"
#include "tests/storage/pg_test_schema.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr const char* haproxy_path = "/usr/sbin/haproxy";

/// Returns a port nothing listens on now.
int free_port() {
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
std::string haproxy_config(int front, const std::vector<int>& ports) {
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

reply post(const cluster& c, const std::string& path, const std::string& body = "{}") {
  return to_reply(c.client().Post(path.c_str(), body, "application/json"));
}

reply get(const cluster& c, const std::string& path) {
  return to_reply(c.client().Get(path.c_str()));
}

std::string state_of(const cluster& c, const std::string& id) {
  auto r = get(c, "/api/v1/operations/" + id);
  return r.status == 200 ? std::string{r.json.at("state").as_string()} : r.body;
}

/// A fresh schema (null: no test database, skip); fails without haproxy.
std::unique_ptr<pg_test_schema> schema_with_haproxy() {
  auto schema = pg_schema_or_skip();
  if (schema && ::access(haproxy_path, X_OK) != 0)
    FAIL(haproxy_path << " is missing: tools/install-deps installs it");
  return schema;
}

} // namespace

TEST_CASE("behind HAProxy over three servers, every control request succeeds on any server",
          "[http][process][pg][cluster]") {
  auto schema = schema_with_haproxy();
  if (!schema)
    return;
  cluster c{schema->uri()};
  auto view = get(c, "/api/v1/cluster");
  REQUIRE(view.status == 200);
  CHECK(view.json.at("servers").as_array().size() == 3);

  // Started round robin: each server drives a third of them.
  std::vector<std::string> sleepers;
  for (int i = 0; i < 24; ++i) {
    auto r = post(c, "/api/v1/operations", R"({"workflow":"bench_sleepers","input":{}})");
    REQUIRE(r.status == 201);
    sleepers.emplace_back(r.json.at("id").as_string());
  }
  std::vector<std::string> failing;
  for (int i = 0; i < 6; ++i) {
    auto r = post(c, "/api/v1/operations", R"({"workflow":"demo","input":{"fail":true}})");
    REQUIRE(r.status == 201);
    failing.emplace_back(r.json.at("id").as_string());
  }
  std::set<std::string> owners;
  for (auto& id : sleepers) {
    REQUIRE(eventually([&] { return state_of(c, id) == "waiting"; }, 30s));
    owners.insert(std::string{get(c, "/api/v1/operations/" + id).json.at("owner").as_string()});
  }
  CHECK(owners.size() == 3);

  // Each request reaches whichever server is next, mostly not the owner;
  // its answer (and the next read, through yet another server) already
  // shows what it did.
  std::map<int, int> statuses;
  int requests = 0;
  auto expect = [&](const reply& r, int status, const std::string& what) {
    ++requests;
    ++statuses[r.status];
    INFO(what << ": " << r.body);
    CHECK(r.status == status);
  };
  for (size_t i = 0; i < sleepers.size(); ++i) {
    auto base = "/api/v1/operations/" + sleepers[i];
    auto paused = post(c, base + "/pause");
    expect(paused, 202, "pause");
    CHECK(paused.json.at("state") == "paused");
    CHECK(state_of(c, sleepers[i]) == "paused");
    auto resumed = post(c, base + "/resume");
    expect(resumed, 202, "resume");
    CHECK(resumed.json.at("state") == "waiting");
    auto sig = R"({"signal_id":"s-)" + std::to_string(i) + R"(","note":"hi"})";
    expect(post(c, base + "/signals/go", sig), 202, "signal");
    expect(post(c, base + "/signals/go", sig), 200, "repeated signal");
  }
  for (auto& id : failing) {
    REQUIRE(eventually([&] { return state_of(c, id) == "failed"; }, 60s));
    expect(post(c, "/api/v1/operations/" + id + "/retry"), 202, "retry");
  }
  for (auto& id : sleepers) {
    expect(post(c, "/api/v1/operations/" + id + "/cancel"), 202, "cancel");
    CHECK(state_of(c, id) == "canceled");
  }
  CHECK(requests >= 100);
  CHECK(statuses[409] == 0);
  for (auto& id : sleepers) {
    auto op = get(c, "/api/v1/operations/" + id);
    CHECK(op.json.at("signals").as_array().size() == 1);
    CHECK(op.json.at("owner").is_null()); // ended: nobody drives it
  }
  CHECK(schema->admin("SELECT count(*) FROM \"" + schema->name() + "\".operation_commands") == "0");
}

TEST_CASE("behind HAProxy, a server killed and another stopped under load lose no acknowledged "
          "operation and record no step twice",
          "[http][process][pg][cluster]") {
  auto schema = schema_with_haproxy();
  if (!schema)
    return;
  cluster c{schema->uri()};
  // Clients keep starting operations and signalling sleepers through the
  // balancer while the servers go.
  std::atomic<bool> stop{false};
  std::mutex mtx;
  std::vector<std::string> acked;
  std::map<int, int> control;
  auto load = [&](int n) {
    std::vector<std::string> mine;
    for (int i = 0; !stop.load(); ++i) {
      auto r = post(c, "/api/v1/operations", R"({"workflow":"demo","input":{}})");
      if (r.status == 201) {
        std::lock_guard<std::mutex> guard{mtx};
        acked.emplace_back(r.json.at("id").as_string());
      }
      auto s = post(c, "/api/v1/operations", R"({"workflow":"bench_sleepers","input":{}})");
      if (s.status != 201)
        continue;
      std::string id{s.json.at("id").as_string()};
      auto sig = post(c, "/api/v1/operations/" + id + "/signals/go",
                      R"({"signal_id":"c)" + std::to_string(n) + "-" + std::to_string(i) + "\"}");
      auto cancel = post(c, "/api/v1/operations/" + id + "/cancel");
      std::lock_guard<std::mutex> guard{mtx};
      acked.push_back(id);
      ++control[sig.status];
      ++control[cancel.status];
    }
  };
  std::thread t1{load, 1};
  std::thread t2{load, 2};
  std::this_thread::sleep_for(2s);
  ::kill(c.servers[0]->pid, SIGKILL);
  std::this_thread::sleep_for(2s);
  ::kill(c.servers[1]->pid, SIGTERM);
  CHECK(c.servers[1]->wait_exit(60s) == 0);
  std::this_thread::sleep_for(2s);
  stop = true;
  t1.join();
  t2.join();
  INFO(acked.size() << " operations acknowledged");
  REQUIRE(acked.size() >= 20);
  // Requests cut off with a server were not acknowledged; the others all
  // took effect, whichever server they reached.
  CHECK(control[409] == 0);
  // Every acknowledged operation ends, on the one server left.
  for (auto& id : acked) {
    INFO(id);
    REQUIRE(eventually(
      [&] {
        auto s = state_of(c, id);
        return s == "succeeded" || s == "canceled";
      },
      60s));
  }
  // Fencing: no step's result recorded twice in a run.
  std::map<std::string, int> succeeded;
  int64_t after = 0;
  for (;;) {
    auto page = get(c, "/api/v1/events?after=" + std::to_string(after) + "&limit=1000");
    REQUIRE(page.status == 200);
    auto& items = page.json.at("items").as_array();
    if (items.empty())
      break;
    for (auto& e : items) {
      if (e.at("type") == "step_succeeded")
        ++succeeded[std::string{e.at("operation_id").as_string()} + "/"
                    + std::string{e.at("step").as_string()}];
      after = e.at("seq").as_int64();
    }
  }
  for (auto& [key, n] : succeeded) {
    INFO(key);
    CHECK(n == 1);
  }
}
