#include "tests/outbox/fixture.hpp"

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"

namespace stepwise::test {

void warning_log::add(const std::string& msg) {
  std::lock_guard<std::mutex> guard{mtx_};
  items_.push_back(msg);
}

std::vector<std::string> warning_log::all() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return items_;
}

outbox::sink_config sink(const std::string& spec) {
  auto c = outbox::parse_sink(spec);
  if (!c)
    FAIL("bad sink " << spec << ": " << message_of(c.error()));
  return *c;
}

outbox_fixture::outbox_fixture(std::vector<outbox::sink_config> sinks, outbox::sink_timing timing) {
  sys_cfg = std::make_unique<caf::actor_system_config>();
  tune_actor_system(*sys_cfg);
  sys = std::make_unique<caf::actor_system>(*sys_cfg);
  auto opened = open_store("sqlite:" + dir.file("ops.db"));
  REQUIRE(opened);
  st = *opened;
  auto launched = engine::launch(*sys, engine_config{}, outbox_workflows(), st);
  REQUIRE(launched);
  eng = *launched;
  outbox::outbox_config cfg;
  cfg.sinks = std::move(sinks);
  cfg.timing = timing;
  cfg.warn = [w = warnings](const std::string& msg) { w->add(msg); };
  auto started = outbox::outbox::start(*sys, eng, st, std::move(cfg));
  if (!started)
    FAIL("outbox: " << message_of(started.error()));
  ob = std::move(*started);
}

outbox_fixture::~outbox_fixture() {
  ob->stop();
  eng.shutdown();
}

std::vector<std::string> outbox_fixture::start_ops(const std::string& workflow, size_t n) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < n; ++i) {
    boost::json::object input{{"request_id", "r-" + std::to_string(ids.size()) + "-" + workflow}};
    auto res = eng.start({workflow, std::nullopt, input, {}, std::nullopt});
    REQUIRE(res);
    ids.push_back(res->op.id);
  }
  return ids;
}

void outbox_fixture::finish(const std::vector<std::string>& ids) {
  for (auto& id : ids) {
    auto op = eng.wait(id, std::chrono::seconds(30));
    REQUIRE(op);
    REQUIRE(is_terminal(op->state));
  }
}

std::vector<event> outbox_fixture::committed() const {
  auto evs = st->events_after(0, 10'000'000);
  REQUIRE(evs);
  return *evs;
}

outbox::sink_status outbox_fixture::status(const std::string& name) const {
  auto all = ob->status();
  REQUIRE(all);
  for (auto& s : *all)
    if (s.name == name)
      return s;
  FAIL("no sink " << name);
  return {};
}

bool outbox_fixture::caught_up(const std::string& name, std::chrono::seconds limit) const {
  return eventually(
    [&] {
      auto s = status(name);
      return s.lag == 0 && s.cursor > 0;
    },
    limit);
}

std::vector<event> outbox_fixture::run_and_deliver(const std::string& sink, size_t n) {
  auto ids = start_ops("three", n);
  auto tasks = start_ops("task", n / 6);
  finish(ids);
  finish(tasks);
  REQUIRE(caught_up(sink, std::chrono::seconds(30)));
  return committed();
}

} // namespace stepwise::test
