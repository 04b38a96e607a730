#include "tests/http/secrets_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/key_ring.hpp"
#include "tests/http/fixture.hpp"

namespace stepwise::test {

std::string provision_input(const std::string& name, const std::string& password) {
  boost::json::object loc{
    {"name", "dc1"}, {"type", "sim"}, {"properties", {{"user", "ops"}, {"password", password}}}};
  boost::json::object in{{"name", name},
                         {"template", "outputs.url: http://" + name},
                         {"template_type", "TOSCA"},
                         {"deployment_location", std::move(loc)}};
  return boost::json::serialize(in);
}

secrets_server::secrets_server(const ignition_stub& stub, std::vector<std::string> more)
  : proc([&] {
      std::vector<std::string> args{stepwise_binary(), "serve",    "--listen",
                                    "127.0.0.1:0",     "--driver", stub.url("/api/infrastructure")};
      args.insert(args.end(), more.begin(), more.end());
      return args;
    }()) {
  port = proc.await_port(std::chrono::seconds(30));
  INFO(proc.err);
  REQUIRE(port > 0);
  http = std::make_unique<httplib::Client>("127.0.0.1", port);
  http->set_read_timeout(30, 0);
}

std::string secrets_server::start(const std::string& workflow, const std::string& input) {
  auto r = to_reply(http->Post("/api/v1/operations",
                               R"({"workflow":")" + workflow + R"(","input":)" + input + "}",
                               "application/json"));
  INFO(r.body);
  REQUIRE(r.status == 201);
  return r.json.at("id").as_string().c_str();
}

boost::json::object secrets_server::get(const std::string& id) {
  auto r = to_reply(http->Get(("/api/v1/operations/" + id).c_str()));
  INFO(r.body);
  REQUIRE(r.status == 200);
  return r.json.as_object();
}

boost::json::object secrets_server::finish(const std::string& id) {
  int64_t after = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = to_reply(
      http->Get(("/api/v1/events?wait=5&limit=1000&after=" + std::to_string(after)).c_str()));
    REQUIRE(r.status == 200);
    for (auto& e : r.json.at("items").as_array()) {
      auto type = std::string{e.at("type").as_string()};
      if (e.at("operation_id") == id.c_str()
          && (type == "operation_succeeded" || type == "operation_failed"
              || type == "operation_canceled"))
        return get(id);
    }
    after = r.json.at("next_after").as_int64();
  }
  FAIL("operation " << id << " did not end within 60 s");
  return {};
}

int secrets_server::stop(int sig) {
  REQUIRE(::kill(proc.pid, sig) == 0);
  return proc.wait_exit(std::chrono::seconds(30));
}

void secrets_server::deprovision(const ignition_stub& stub, const std::string& provision_id,
                                 const std::string& password) {
  auto before = stub.bodies().size();
  auto gone =
    finish(start("deprovision_runtime", R"({"provision_operation_id":")" + provision_id + R"("})"));
  CHECK(gone.at("state") == "succeeded");
  auto sent = passwords_sent(stub, before);
  REQUIRE(!sent.empty());
  CHECK(sent.front() == password);
}

void check_resumed(secrets_server& srv, const ignition_stub& stub,
                   const std::vector<std::string>& ids, size_t from, const std::string& password) {
  for (auto& id : ids) {
    INFO(id);
    CHECK(srv.finish(id).at("state") == "succeeded");
  }
  auto sent = passwords_sent(stub, from);
  CHECK(!sent.empty());
  CHECK(sent == std::vector<std::string>(sent.size(), password));
}

std::string run_status(const std::string& command) {
  return run_command("{ " + command + "; echo exit=$?; }");
}

bool await_requests(const ignition_stub& stub, size_t n) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (stub.paths().size() < n) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::vector<std::string> passwords_sent(const ignition_stub& stub, size_t from) {
  std::vector<std::string> out;
  auto bodies = stub.bodies();
  for (size_t i = from; i < bodies.size(); ++i) {
    auto body = boost::json::parse(bodies[i]);
    auto* loc = body.as_object().if_contains("deploymentLocation");
    if (loc == nullptr)
      continue;
    boost::json::error_code ec;
    if (auto* pw = loc->find_pointer("/properties/password", ec); pw && pw->is_string())
      out.emplace_back(pw->get_string());
    else
      out.emplace_back("(none: " + boost::json::serialize(*loc) + ")");
  }
  return out;
}

size_t occurrences(const std::string& path, const std::string& needle) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return 0;
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto text = bytes.str();
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

void write_private(const std::string& path, const std::string& text) {
  ::unlink(path.c_str());
  auto fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

std::string new_key_line(const std::string& id) {
  auto key = key_ring::generate(id);
  REQUIRE(key);
  return key_ring::line_of(*key);
}

} // namespace stepwise::test
