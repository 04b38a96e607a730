#include <catch2/catch.hpp>

#include "tests/infra/driver_calls.hpp"

#include "actors/virtual_clock.hpp"
#include "infra/sim_driver.hpp"

using namespace stepwise;
using namespace stepwise::infra;
using namespace std::chrono_literals;

namespace {

struct fixture {
  std::shared_ptr<virtual_clock> clk =
    std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));

  std::shared_ptr<sim_driver> make(sim_config cfg = {}) {
    return std::make_shared<sim_driver>(std::move(cfg), clk);
  }
};

deployment_location here(std::string name = "dc1") {
  deployment_location loc;
  loc.name = std::move(name);
  loc.type = "sim";
  loc.properties["password"] = "hunter2";
  return loc;
}

create_request request(std::string tpl, std::string name = "vm1", std::string request_key = {}) {
  create_request req;
  req.template_text = std::move(tpl);
  req.template_type = "sim";
  req.system_properties["resourceName"] = boost::json::object{{"value", name}};
  if (!request_key.empty())
    req.system_properties["requestId"] = request_key;
  req.location = here();
  return req;
}

template <class T>
const T& value(const result<T>& r) {
  if (auto err = std::get_if<error>(&r))
    FAIL("driver error: " << err->message);
  return std::get<T>(r);
}

template <class T>
error_kind kind(const result<T>& r) {
  REQUIRE(std::holds_alternative<error>(r));
  return std::get<error>(r).kind;
}

const std::string vm = "outputs.ip: 10.0.0.7\nlatency_ms: 5000\n";

} // namespace

TEST_CASE("sim: a create is in progress until due, then complete with outputs", "[infra][sim]") {
  fixture f;
  auto drv = f.make();
  auto acc = value(test::create_now(*drv, request(vm)));
  CHECK(!acc.infrastructure_id.empty());
  CHECK(acc.infrastructure_id != acc.request_id);
  auto t = value(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here()));
  CHECK(t.status == task_status::in_progress);
  CHECK(t.outputs.empty());
  f.clk->advance(4999ms);
  CHECK(value(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here())).status
        == task_status::in_progress);
  f.clk->advance(1ms);
  t = value(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here()));
  CHECK(t.status == task_status::complete);
  CHECK(!t.failure);
  CHECK(t.outputs == boost::json::object{{"ip", "10.0.0.7"}});
  CHECK(drv->exists(acc.infrastructure_id));
}

TEST_CASE("sim: the same seed gives the same ids, latencies and failures", "[infra][sim]") {
  auto run = [](uint64_t seed) {
    fixture f;
    sim_config cfg;
    cfg.seed = seed;
    cfg.failure_rate = 0.5;
    cfg.temporary_error_rate = 0.2;
    cfg.min_latency = 1s;
    cfg.max_latency = 5s;
    auto drv = f.make(cfg);
    std::vector<std::string> trace;
    for (int i = 0; i < 40; ++i) {
      auto r = test::create_now(*drv, request("type: vm", "vm" + std::to_string(i)));
      if (auto err = std::get_if<error>(&r)) {
        trace.push_back(std::string(to_string(err->kind)));
        continue;
      }
      auto acc = std::get<accepted>(r);
      trace.push_back(acc.infrastructure_id + "/" + acc.request_id);
      f.clk->advance(3s);
      auto t = test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here());
      if (auto tk = std::get_if<task>(&t))
        trace.push_back(std::string(to_string(tk->status)));
    }
    return trace;
  };
  auto a = run(7);
  CHECK(a == run(7));
  CHECK(a != run(8));
  // With these rates some of each outcome shows up.
  auto has = [&](std::string_view s) { return std::find(a.begin(), a.end(), s) != a.end(); };
  CHECK(has("temporary"));
  CHECK(has("FAILED"));
  CHECK(has("COMPLETE"));
  CHECK(has("IN_PROGRESS"));
}

TEST_CASE("sim: a failure rate of 1 fails every task with a failure code", "[infra][sim]") {
  fixture f;
  sim_config cfg;
  cfg.failure_rate = 1.0;
  cfg.max_latency = cfg.min_latency = 1s;
  auto drv = f.make(cfg);
  auto acc = value(test::create_now(*drv, request("type: vm")));
  f.clk->advance(1s);
  auto t = value(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here()));
  CHECK(t.status == task_status::failed);
  REQUIRE(t.failure);
  CHECK((t.failure->code == failure_code::insufficient_capacity
         || t.failure->code == failure_code::infrastructure_error));
  CHECK(!drv->exists(acc.infrastructure_id));
}

TEST_CASE("sim: a template can force a failure", "[infra][sim]") {
  fixture f;
  auto drv = f.make();
  auto acc =
    value(test::create_now(*drv, request("fail: INSUFFICIENT_CAPACITY zone full\nlatency_ms: 0")));
  auto t = value(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here()));
  CHECK(t.status == task_status::failed);
  REQUIRE(t.failure);
  CHECK(t.failure->code == failure_code::insufficient_capacity);
  CHECK(t.failure->description == "zone full");
}

TEST_CASE("sim: every error kind", "[infra][sim]") {
  fixture f;
  sim_config cfg;
  cfg.locations = {"dc1", "dc2"};
  cfg.unreachable = {"dc2"};
  auto drv = f.make(cfg);
  SECTION("invalid templates") {
    CHECK(kind(test::create_now(*drv, request(""))) == error_kind::invalid_template);
    CHECK(kind(test::create_now(*drv, request("# only a comment\n\n")))
          == error_kind::invalid_template);
    CHECK(kind(test::create_now(*drv, request("no colon here"))) == error_kind::invalid_template);
    CHECK(kind(test::create_now(*drv, request(": empty key"))) == error_kind::invalid_template);
    CHECK(kind(test::create_now(*drv, request("latency_ms: soon")))
          == error_kind::invalid_template);
    CHECK(kind(test::create_now(*drv, request("fail: NOPE"))) == error_kind::invalid_template);
    CHECK(kind(test::find_now(*drv, "", "sim", "vm1", here())) == error_kind::invalid_template);
    CHECK(drv->creates() == 0);
  }
  SECTION("unknown and unreachable locations") {
    auto req = request(vm);
    req.location = here("nowhere");
    auto err = std::get<error>(test::create_now(*drv, req));
    CHECK(err.kind == error_kind::unreachable_location);
    CHECK(err.message.find("hunter2") == std::string::npos);
    req.location = here("dc2");
    CHECK(kind(test::create_now(*drv, req)) == error_kind::unreachable_location);
    drv->set_reachable("dc2", true);
    auto acc = value(test::create_now(*drv, req));
    drv->set_reachable("dc2", false);
    CHECK(kind(test::get_task_now(*drv, acc.infrastructure_id, acc.request_id, here("dc2")))
          == error_kind::unreachable_location);
    CHECK(kind(test::remove_now(*drv, acc.infrastructure_id, here("dc2")))
          == error_kind::unreachable_location);
    CHECK(kind(test::find_now(*drv, vm, "sim", "vm1", here("dc2")))
          == error_kind::unreachable_location);
  }
  SECTION("not found and request not found") {
    auto acc = value(test::create_now(*drv, request(vm)));
    CHECK(kind(test::get_task_now(*drv, "inf-unknown", acc.request_id, here()))
          == error_kind::not_found);
    CHECK(kind(test::get_task_now(*drv, acc.infrastructure_id, "req-unknown", here()))
          == error_kind::request_not_found);
    CHECK(kind(test::remove_now(*drv, "inf-unknown", here())) == error_kind::not_found);
    // Another infrastructure's request is not this one's.
    auto other = value(test::create_now(*drv, request(vm, "vm2")));
    CHECK(kind(test::get_task_now(*drv, acc.infrastructure_id, other.request_id, here()))
          == error_kind::request_not_found);
  }
  SECTION("injected errors last for the given number of calls") {
    drv->inject(error_kind::temporary, 2);
    CHECK(kind(test::create_now(*drv, request(vm))) == error_kind::temporary);
    CHECK(kind(test::find_now(*drv, vm, "sim", "vm1", here())) == error_kind::temporary);
    value(test::create_now(*drv, request(vm)));
    drv->inject(error_kind::infrastructure_error, 1);
    CHECK(kind(test::create_now(*drv, request(vm))) == error_kind::infrastructure_error);
  }
  SECTION("a temporary error rate of 1 refuses every call") {
    sim_config busy;
    busy.temporary_error_rate = 1.0;
    auto b = f.make(busy);
    CHECK(kind(test::create_now(*b, request(vm))) == error_kind::temporary);
    CHECK(kind(test::remove_now(*b, "x", here())) == error_kind::temporary);
    CHECK(kind(test::get_task_now(*b, "x", "y", here())) == error_kind::temporary);
  }
}

TEST_CASE("sim: a create with a known requestId answers the same ids", "[infra][sim]") {
  fixture f;
  auto drv = f.make();
  auto a = value(test::create_now(*drv, request(vm, "vm1", "op-1:create")));
  auto b = value(test::create_now(*drv, request(vm, "vm1", "op-1:create")));
  CHECK(a.infrastructure_id == b.infrastructure_id);
  CHECK(a.request_id == b.request_id);
  // The {value} form is the same key.
  auto req = request(vm, "vm1");
  req.system_properties["requestId"] = boost::json::object{{"value", "op-1:create"}};
  CHECK(value(test::create_now(*drv, req)).infrastructure_id == a.infrastructure_id);
  CHECK(drv->creates() == 1);
  auto c = value(test::create_now(*drv, request(vm, "vm1", "op-2:create")));
  CHECK(c.infrastructure_id != a.infrastructure_id);
  CHECK(drv->creates() == 2);
}

TEST_CASE("sim: find matches live infrastructure by resourceName", "[infra][sim]") {
  fixture f;
  auto drv = f.make();
  auto acc = value(test::create_now(*drv, request(vm, "web")));
  // Still being created: not there yet.
  CHECK(!value(test::find_now(*drv, vm, "sim", "web", here())));
  f.clk->advance(5s);
  auto hit = value(test::find_now(*drv, vm, "sim", "web", here()));
  REQUIRE(hit);
  CHECK(hit->infrastructure_id == acc.infrastructure_id);
  CHECK(hit->outputs == boost::json::object{{"ip", "10.0.0.7"}});
  CHECK(!value(test::find_now(*drv, vm, "sim", "db", here())));
  CHECK(!value(test::find_now(*drv, vm, "sim", "web", here("default"))));
  // Deleting: still found until the delete task completes.
  auto del = value(test::remove_now(*drv, acc.infrastructure_id, here()));
  CHECK(del.infrastructure_id == acc.infrastructure_id);
  CHECK(del.request_id != acc.request_id);
  CHECK(value(test::find_now(*drv, vm, "sim", "web", here())));
  // A second remove meanwhile answers the same delete task.
  CHECK(value(test::remove_now(*drv, acc.infrastructure_id, here())).request_id == del.request_id);
  f.clk->advance(10s);
  auto t = value(test::get_task_now(*drv, acc.infrastructure_id, del.request_id, here()));
  CHECK(t.status == task_status::complete);
  CHECK(!value(test::find_now(*drv, vm, "sim", "web", here())));
  CHECK(!drv->exists(acc.infrastructure_id));
  CHECK(kind(test::remove_now(*drv, acc.infrastructure_id, here())) == error_kind::not_found);
}

TEST_CASE("sim: 100k tasks stay cheap", "[infra][sim]") {
  fixture f;
  sim_config cfg;
  cfg.max_latency = cfg.min_latency = 1s;
  auto drv = f.make(cfg);
  std::vector<accepted> all;
  all.reserve(100'000);
  for (int i = 0; i < 100'000; ++i)
    all.push_back(value(test::create_now(*drv, request("outputs.n: 1", "vm"))));
  f.clk->advance(1s);
  CHECK(value(test::get_task_now(*drv, all.back().infrastructure_id, all.back().request_id, here()))
          .status
        == task_status::complete);
  CHECK(drv->creates() == 100'000);
}

TEST_CASE("sim: only the configured locations are served", "[infra][sim]") {
  fixture f;
  auto drv = f.make();
  for (auto name : {"default", "dc1"})
    value(test::create_now(*drv, request(vm, std::string("vm-") + name)));
  auto req = request(vm);
  req.location = here("dc9");
  auto err = std::get<error>(test::create_now(*drv, req));
  CHECK(err.kind == error_kind::unreachable_location);
  CHECK(err.message.find("dc9") != std::string::npos);
  CHECK(err.message.find("dc1, default") != std::string::npos);
  CHECK(err.message.find("hunter2") == std::string::npos);
  CHECK(kind(test::find_now(*drv, vm, "sim", "vm1", here("dc9")))
        == error_kind::unreachable_location);
  sim_config one;
  one.locations = {"eu-1"};
  auto eu = f.make(one);
  auto in_eu = request(vm);
  in_eu.location = here("eu-1");
  value(test::create_now(*eu, in_eu));
  CHECK(kind(test::create_now(*eu, request(vm))) == error_kind::unreachable_location);
}
