// The HTTP client driver against an in-test server that plays an Ignition
// driver: what it sends, and how each answer maps back to a driver result.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/infra/driver_calls.hpp"
#include "tests/infra/ignition_stub.hpp"
#include "tests/infra/thread_count.hpp"
#include "tests/infra/tls_files.hpp"

#include "engine/errc.hpp"
#include "infra/ignition_driver.hpp"

using namespace stepwise;
using test::ignition_stub;
namespace json = boost::json;

namespace {

std::shared_ptr<infra::ignition_driver> make_client(
  const std::string& url, std::chrono::milliseconds read = std::chrono::seconds(10)) {
  infra::ignition_driver_config cfg;
  cfg.base_url = url;
  cfg.call_timeout = read;
  auto d = infra::ignition_driver::make(cfg);
  REQUIRE(d);
  return *d;
}

infra::deployment_location cloud() {
  return {"cloud-a", "Openstack", {{"password", "pw-9"}}};
}

template <class T>
infra::error error_of(const infra::result<T>& r) {
  REQUIRE(std::holds_alternative<infra::error>(r));
  return std::get<infra::error>(r);
}

} // namespace

TEST_CASE("the client driver sends the spec's requests and reads the answers",
          "[http][infra][client]") {
  ignition_stub stub;
  auto d = make_client(stub.url());
  CHECK(d->prefix() == "/api/infrastructure");
  SECTION("create") {
    stub.answer(202, R"({"infrastructureId":"i1","requestId":"r1"})");
    infra::create_request req;
    req.template_text = "t";
    req.template_type = "TOSCA";
    req.location = cloud();
    req.system_properties = {{"resourceName", {{"value", "n1"}, {"type", "string"}}}};
    auto got = test::create_now(*d, req);
    REQUIRE(std::holds_alternative<infra::accepted>(got));
    CHECK(std::get<infra::accepted>(got).infrastructure_id == "i1");
    CHECK(std::get<infra::accepted>(got).request_id == "r1");
    CHECK(stub.paths() == std::vector<std::string>{"/api/infrastructure/create"});
    auto sent = stub.last_body();
    CHECK(sent.at("template") == "t");
    CHECK(sent.at("templateType") == "TOSCA");
    CHECK(sent.at("systemProperties").at("resourceName").at("value") == "n1");
    CHECK(sent.at("properties").as_object().empty());
    CHECK(
      sent.at("deploymentLocation")
      == json::parse(R"({"name":"cloud-a","type":"Openstack","properties":{"password":"pw-9"}})"));
  }
  SECTION("delete") {
    stub.answer(202, R"({"infrastructureId":"i1","requestId":"r2"})");
    auto got = test::remove_now(*d, "i1", cloud());
    REQUIRE(std::holds_alternative<infra::accepted>(got));
    CHECK(std::get<infra::accepted>(got).request_id == "r2");
    CHECK(stub.paths().back() == "/api/infrastructure/delete");
    CHECK(stub.last_body().at("infrastructureId") == "i1");
  }
  SECTION("query") {
    stub.answer(200,
                R"({"infrastructureId":"i1","requestId":"r1","status":"FAILED",)"
                R"("failureDetails":{"failureCode":"RESOURCE_NOT_FOUND","description":"gone"}})");
    auto got = test::get_task_now(*d, "i1", "r1", cloud());
    REQUIRE(std::holds_alternative<infra::task>(got));
    auto& t = std::get<infra::task>(got);
    CHECK(t.status == infra::task_status::failed);
    REQUIRE(t.failure);
    CHECK(t.failure->code == infra::failure_code::resource_not_found);
    CHECK(t.failure->description == "gone");
    CHECK(stub.last_body().at("requestId") == "r1");
    // Ids the driver leaves out are the ones asked for.
    stub.answer(200, R"({"status":"COMPLETE","outputs":{"ip":"10.1.1.1"}})");
    got = test::get_task_now(*d, "i1", "r1", cloud());
    REQUIRE(std::holds_alternative<infra::task>(got));
    CHECK(std::get<infra::task>(got).infrastructure_id == "i1");
    CHECK(std::get<infra::task>(got).request_id == "r1");
    CHECK(std::get<infra::task>(got).outputs.at("ip") == "10.1.1.1");
  }
  SECTION("find") {
    stub.answer(200, R"({"result":null})");
    auto got = test::find_now(*d, "t", "TOSCA", "n1", cloud());
    REQUIRE(std::holds_alternative<std::optional<infra::found>>(got));
    CHECK_FALSE(std::get<std::optional<infra::found>>(got));
    CHECK(stub.last_body().at("instanceName") == "n1");
    stub.answer(200, R"({"result":{"infrastructureId":"i9","outputs":{"a":"b"}}})");
    got = test::find_now(*d, "t", "TOSCA", "n1", cloud());
    auto& f = std::get<std::optional<infra::found>>(got);
    REQUIRE(f);
    CHECK(f->infrastructure_id == "i9");
    CHECK(f->outputs.at("a") == "b");
  }
}

TEST_CASE("the client driver honours a path prefix", "[http][infra][client]") {
  ignition_stub stub;
  auto d = make_client(stub.url("/vim/api/"));
  CHECK(d->prefix() == "/vim/api");
  stub.answer(200, R"({"result":null})");
  REQUIRE(std::holds_alternative<std::optional<infra::found>>(
    test::find_now(*d, "t", "T", "n", cloud())));
  CHECK(stub.paths() == std::vector<std::string>{"/vim/api/find"});
}

TEST_CASE("the client driver maps error answers to driver error kinds", "[http][infra][client]") {
  ignition_stub stub;
  auto d = make_client(stub.url());
  using k = infra::error_kind;
  auto msg = [](const char* text) {
    return json::serialize(json::object{{"localizedMessage", text}, {"status", 400}});
  };
  infra::create_request req;
  req.template_text = "t";
  req.location = cloud();
  auto create = [&] { return error_of(test::create_now(*d, req)); };
  auto remove = [&] { return error_of(test::remove_now(*d, "i1", cloud())); };
  auto query = [&] { return error_of(test::get_task_now(*d, "i1", "r1", cloud())); };
  auto find = [&] { return error_of(test::find_now(*d, "t", "T", "n", cloud())); };

  stub.answer(400, msg("Template included in request was invalid"));
  CHECK(create().kind == k::invalid_template);
  CHECK(find().kind == k::invalid_template);
  stub.answer(400, msg("Infrastructure not found with this ID"));
  CHECK(remove().kind == k::not_found);
  CHECK(query().kind == k::not_found);
  stub.answer(400, msg("Infrastructure task not found with this ID"));
  CHECK(query().kind == k::request_not_found);
  stub.answer(400, msg("Deployment Location cannot be reached"));
  CHECK(create().kind == k::unreachable_location);
  CHECK(remove().kind == k::unreachable_location);
  CHECK(query().kind == k::unreachable_location);
  CHECK(find().kind == k::unreachable_location);
  stub.answer(503, msg("busy, try later"));
  auto e = query();
  CHECK(e.kind == k::temporary);
  CHECK_THAT(e.message, Catch::Contains("busy, try later") && Catch::Contains("503"));
  stub.answer(500, msg("stack exploded"));
  e = create();
  CHECK(e.kind == k::infrastructure_error);
  CHECK_THAT(e.message, Catch::Contains("stack exploded"));
  stub.answer(404, "not here");
  e = find();
  CHECK(e.kind == k::infrastructure_error);
  CHECK_THAT(e.message, Catch::Contains("404") && Catch::Contains("not here"));
  // A success status with a body that is not the spec's is no success.
  stub.answer(202, R"({"infrastructureId":"i1"})");
  e = create();
  CHECK(e.kind == k::infrastructure_error);
  CHECK_THAT(e.message, Catch::Contains("'requestId'"));
  stub.answer(200, "not json");
  CHECK(query().kind == k::infrastructure_error);
  stub.answer(200, R"({"status":"DONE"})");
  CHECK(query().kind == k::infrastructure_error);
}

TEST_CASE("no answer from the driver is a temporary error", "[http][infra][client]") {
  SECTION("connection refused") {
    std::string url;
    {
      ignition_stub gone;
      url = gone.url();
    }
    auto d = make_client(url);
    auto e = error_of(test::get_task_now(*d, "i1", "r1", cloud()));
    CHECK(e.kind == infra::error_kind::temporary);
    CHECK_THAT(e.message, Catch::Contains("no answer"));
  }
  SECTION("read timeout") {
    ignition_stub slow;
    slow.answer(200, R"({"status":"COMPLETE"})");
    slow.hold();
    auto d = make_client(slow.url(), std::chrono::milliseconds(200));
    auto e = error_of(test::get_task_now(*d, "i1", "r1", cloud()));
    CHECK(e.kind == infra::error_kind::temporary);
    slow.release();
    // The pool dropped the timed-out connection: the next call works.
    auto got = test::get_task_now(*d, "i1", "r1", cloud());
    CHECK(std::holds_alternative<infra::task>(got));
  }
}

TEST_CASE("the client driver serves concurrent calls", "[http][infra][client]") {
  ignition_stub stub;
  stub.answer(202, R"({"infrastructureId":"i1","requestId":"r1"})");
  auto d = make_client(stub.url());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (std::holds_alternative<infra::accepted>(test::remove_now(*d, "i1", cloud())))
          ++ok;
    });
  for (auto& t : threads)
    t.join();
  CHECK(ok == 120);
  CHECK(stub.paths().size() == 120);
}

TEST_CASE("the client driver keeps hundreds of calls in flight on one thread",
          "[http][infra][client]") {
  ignition_stub stub{300};
  stub.answer(200, R"({"infrastructureId":"i1","requestId":"r1","status":"IN_PROGRESS"})");
  stub.hold();
  constexpr int n = 400;
  auto before = test::thread_count();
  auto d = make_client(stub.url());
  std::mutex mtx;
  std::condition_variable cv;
  int tasks = 0;
  int answered = 0;
  for (int i = 0; i < n; ++i)
    d->get_task("i1", "r1", cloud(), [&](infra::result<infra::task> r) {
      std::lock_guard<std::mutex> g{mtx};
      tasks += std::holds_alternative<infra::task>(r) ? 1 : 0;
      answered += 1;
      cv.notify_all();
    });
  // The driver holds the default cap of connections open at once, on its
  // one I/O thread; the other calls wait in memory.
  REQUIRE(stub.wait_active(128, std::chrono::seconds(30)));
  CHECK(test::thread_count() <= before + 1);
  auto st = d->stats();
  CHECK(st.in_flight + st.queued == n);
  stub.release();
  std::unique_lock<std::mutex> g{mtx};
  REQUIRE(cv.wait_for(g, std::chrono::seconds(60), [&] { return answered == n; }));
  CHECK(tasks == n);
  CHECK(stub.peak() == 128);
  CHECK(d->stats().completed == n);
}

TEST_CASE("the client driver speaks https to a driver it trusts", "[http][infra][client]") {
  test::tls_files tls;
  REQUIRE(tls.ok);
  ignition_stub stub{8, tls.cert, tls.key};
  stub.answer(202, R"({"infrastructureId":"i1","requestId":"r1"})");
  REQUIRE(stub.url().rfind("https://", 0) == 0);
  infra::ignition_driver_config cfg;
  cfg.base_url = stub.url();
  cfg.ca_file = tls.cert;
  auto trusting = infra::ignition_driver::make(cfg);
  REQUIRE(trusting);
  auto got = test::remove_now(**trusting, "i1", cloud());
  REQUIRE(std::holds_alternative<infra::accepted>(got));
  CHECK(std::get<infra::accepted>(got).request_id == "r1");
  CHECK(stub.last_body().at("infrastructureId") == "i1");
  // A certificate the driver cannot verify: no call gets through.
  cfg.ca_file.clear();
  auto strict = infra::ignition_driver::make(cfg);
  REQUIRE(strict);
  auto e = error_of(test::remove_now(**strict, "i1", cloud()));
  CHECK(e.kind == infra::error_kind::temporary);
  CHECK_THAT(e.message, Catch::Contains("tls"));
  CHECK(stub.paths().size() == 1);
  cfg.verify_tls = false;
  auto unverified = infra::ignition_driver::make(cfg);
  REQUIRE(unverified);
  CHECK(std::holds_alternative<infra::accepted>(test::remove_now(**unverified, "i1", cloud())));
}

TEST_CASE("the client driver refuses bad URLs without quoting them", "[http][infra][client]") {
  for (auto url : {"ftp://host/x", "http://", "http://user:hunter2@host:1/", "host:8080",
                   "http://h:1/p?q=1"}) {
    INFO(url);
    infra::ignition_driver_config cfg;
    cfg.base_url = url;
    auto d = infra::ignition_driver::make(cfg);
    REQUIRE_FALSE(d);
    auto text = message_of(d.error());
    CHECK(text.find("hunter2") == std::string::npos);
  }
}
