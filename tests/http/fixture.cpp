#include "tests/http/fixture.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <catch2/catch.hpp>

#include "storage/open_engine.hpp"
#include "workflows/demo.hpp"
#include "http/infrastructure_routes.hpp"
#include "tests/http/fake_driver.hpp"

namespace stepwise::test {

std::atomic<bool> flip_allowed{false};

registry test_registry() {
  registry reg;
  workflow quick("quick", 1);
  quick
    .step(1, make_step("only",
                       [](step_context& ctx) {
                         ctx.data()["ran"] = true;
                         return done();
                       }))
    .label("user", "/user"); // find_test.cpp
  REQUIRE(reg.add(std::move(quick)));
  workflow flip("flip", 1);
  flip.step(1, make_step("flip", [](step_context&) {
              return flip_allowed ? done() : fail("not allowed yet");
            }));
  REQUIRE(reg.add(std::move(flip)));
  workflow sleepy("sleepy", 1);
  sleepy.step(1, make_step("first", [](step_context&) { return done(); }))
    .step(2, make_sleep("nap", std::chrono::hours(1)));
  REQUIRE(reg.add(std::move(sleepy)));
  workflow secretive("secretive", 1);
  secretive.step(1, make_step("only", [](step_context&) { return done(); })).secret("/password");
  REQUIRE(reg.add(std::move(secretive)));
  workflow billed("billed", 1);
  billed
    .step(1, make_task_step("charge", "billing").with_heartbeat_timeout(std::chrono::minutes(1)))
    .step(2, make_step("after", [](step_context&) { return done(); }));
  REQUIRE(reg.add(std::move(billed)));
  REQUIRE(reg.add(workflows::demo()));
  return reg;
}

void message_log::add(std::string msg) {
  std::lock_guard<std::mutex> g{mtx_};
  items_.push_back(std::move(msg));
}

std::vector<std::string> message_log::all() const {
  std::lock_guard<std::mutex> g{mtx_};
  return items_;
}

std::string reply::header(const std::string& name) const {
  auto i = headers.find(name);
  return i == headers.end() ? std::string() : i->second;
}

std::string reply::error_code() const {
  if (!json.is_object())
    return "";
  auto e = json.as_object().if_contains("error");
  if (e == nullptr || !e->is_object())
    return "";
  auto c = e->as_object().if_contains("code");
  return c != nullptr && c->is_string() ? std::string(c->get_string()) : "";
}

reply to_reply(const httplib::Result& r) {
  reply out;
  if (!r)
    return out;
  out.status = r->status;
  out.body = r->body;
  out.headers = r->headers;
  boost::json::error_code ec;
  out.json = boost::json::parse(r->body, ec);
  if (ec)
    out.json = nullptr;
  return out;
}

http_fixture::http_fixture(http::server_config cfg, std::shared_ptr<infra::driver> drv,
                           std::function<void(http::server&, engine&)> mount_more)
  : scfg(std::move(cfg)), driver(std::move(drv)), mount(std::move(mount_more)) {
  start();
}

http_fixture::http_fixture(http::server_config cfg, std::shared_ptr<infra::driver> drv,
                           registry_maker make)
  : make_registry(std::move(make)), scfg(std::move(cfg)), driver(std::move(drv)) {
  start();
}

http_fixture::~http_fixture() {
  stop();
}

http::server_config http_fixture::default_config() {
  http::server_config c;
  c.port = 0;
  c.threads = 16;
  c.lim.max_streams = 8;
  c.lim.heartbeat = std::chrono::milliseconds(500);
  return c;
}

void http_fixture::start() {
  // The actor system keeps a reference to its config.
  sys_cfg = std::make_unique<caf::actor_system_config>();
  tune_actor_system(*sys_cfg);
  sys_cfg->set("scheduler.max-threads", 2);
  sys_cfg->set("logger.console", caf::atom("none"));
  sys = std::make_unique<caf::actor_system>(*sys_cfg);
  engine_config ec;
  ec.store_uri = "sqlite:" + dir.path + "/stepwise.db";
  ec.step_workers = 4;
  if (tune_engine)
    tune_engine(ec);
  auto reg = make_registry ? make_registry(*sys) : test_registry();
  if (driver)
    REQUIRE(reg.add(stand_in_infrastructure_task()));
  auto e = open_engine(*sys, ec, std::move(reg));
  REQUIRE(e);
  eng = *e;
  srv = std::make_unique<http::server>(*sys, eng, scfg);
  if (driver) {
    http::infrastructure_context ictx;
    ictx.eng = eng;
    ictx.driver = driver;
    ictx.max_json_depth = scfg.lim.max_json_depth;
    auto sink = warnings;
    ictx.warn = [sink](const std::string& msg) { sink->add(msg); };
    http::add_infrastructure_routes(srv->routes(), std::move(ictx));
  }
  if (mount)
    mount(*srv, eng);
  auto port = srv->bind();
  REQUIRE(port);
  srv->start();
}

void http_fixture::stop() {
  if (srv)
    srv->stop();
  srv.reset();
  eng.shutdown();
  eng = engine{};
  sys.reset();
}

std::unique_ptr<httplib::Client> http_fixture::client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port());
  c->set_keep_alive(true);
  c->set_read_timeout(30, 0);
  return c;
}

reply http_fixture::get(const std::string& target) const {
  return to_reply(client()->Get(target));
}

reply http_fixture::post(const std::string& target, const std::string& body,
                         const std::string& content_type) const {
  return to_reply(client()->Post(target, body, content_type));
}

reply http_fixture::put(const std::string& target, const std::string& body,
                        const std::string& content_type) const {
  return to_reply(client()->Put(target, body, content_type));
}

reply http_fixture::del(const std::string& target) const {
  return to_reply(client()->Delete(target));
}

std::string http_fixture::start_op(const std::string& workflow, const std::string& input) const {
  auto r =
    post("/api/v1/operations", R"({"workflow":")" + workflow + R"(","input":)" + input + "}");
  INFO(r.body);
  REQUIRE(r.status == 201);
  return std::string(r.json.at("id").as_string());
}

std::string http_fixture::finish(const std::string& id) {
  auto op = eng.wait(id, std::chrono::seconds(20));
  REQUIRE(op);
  return std::string(to_string(op->state));
}

bool http_fixture::await_event(const std::string& id, const std::string& type) const {
  int64_t after = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto c = client();
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = to_reply(c->Get("/api/v1/events?limit=1000&wait=5&after=" + std::to_string(after)));
    if (r.status != 200)
      return false;
    for (auto& e : r.json.at("items").as_array())
      if (e.at("operation_id").as_string() == id.c_str()
          && e.at("type").as_string() == type.c_str())
        return true;
    after = r.json.at("next_after").as_int64();
  }
  return false;
}

size_t http_fixture::count_ops() const {
  size_t n = 0;
  std::string cursor;
  auto c = client();
  for (;;) {
    auto r = to_reply(
      c->Get("/api/v1/operations?limit=500" + (cursor.empty() ? "" : "&cursor=" + cursor)));
    REQUIRE(r.status == 200);
    n += r.json.at("items").as_array().size();
    auto& next = r.json.at("next_cursor");
    if (next.is_null())
      return n;
    cursor = std::string(next.as_string());
  }
}

std::vector<int64_t> http_fixture::log_seqs(int64_t after) const {
  std::vector<int64_t> out;
  for (;;) {
    auto r = get("/api/v1/events?limit=1000&after=" + std::to_string(after));
    REQUIRE(r.status == 200);
    auto& items = r.json.at("items").as_array();
    if (items.empty())
      return out;
    for (auto& e : items)
      out.push_back(e.at("seq").as_int64());
    after = r.json.at("next_after").as_int64();
  }
}

std::string raw_exchange(int port, const std::string& text, std::chrono::milliseconds timeout) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  size_t sent = 0;
  while (sent < text.size()) {
    auto n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      break;
    sent += static_cast<size_t>(n);
  }
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_some(fd, out, deadline)) {
  }
  ::close(fd);
  return out;
}

bool read_some(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now())
                .count();
  if (left <= 0)
    return false;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left)) <= 0)
    return false;
  char buf[4096];
  auto n = ::read(fd, buf, sizeof(buf));
  if (n <= 0)
    return false;
  out.append(buf, static_cast<size_t>(n));
  return true;
}

int raw_status(const std::string& text) {
  if (text.rfind("HTTP/1.1 ", 0) != 0 || text.size() < 12)
    return 0;
  return std::atoi(text.substr(9, 3).c_str());
}

} // namespace stepwise::test
