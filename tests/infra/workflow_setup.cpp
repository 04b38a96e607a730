#include "tests/infra/workflow_setup.hpp"

#include <catch2/catch.hpp>

#include "engine/errc.hpp"

namespace stepwise::test {

using namespace std::chrono_literals;

workflow_setup::workflow_setup(workflows::cleanup_fn cleanup,
                               std::vector<workflows::provisioning_step> added) {
  infra::sim_config cfg;
  cfg.min_latency = cfg.max_latency = 5s;
  drv = std::make_shared<infra::sim_driver>(cfg, clk);
  log = std::make_shared<poll_log>(drv, clk);
  deps.driver = drv;
  auto store = st;
  deps.read_operation = [store](const std::string& id) { return store->load(id); };
  deps.list_operations = [store](const list_filter& f) { return store->list(f); };
  deps.calls.initial_interval = 1s;
  deps.calls.jitter = 0;
  deps.cleanup = std::move(cleanup);
  deps.provisioning_steps = std::move(added);
  restart();
}

void workflow_setup::restart() {
  h.reset();
  auto polled = log;
  h = std::make_unique<harness>(
    [d = deps, polled](caf::actor_system& sys, std::shared_ptr<virtual_clock> c) mutable {
      infra::monitor_options opts;
      opts.initial_backoff = 1s;
      opts.max_backoff = 4s;
      d.monitor = infra::spawn_monitor(sys, polled, c, opts);
      registry reg;
      REQUIRE(workflows::add_infrastructure_workflows(reg, d));
      return reg;
    },
    st, engine_config{}, clk);
}

operation workflow_setup::drive(const std::string& id) {
  for (int i = 0; i < 1000; ++i) {
    auto op = h->eng.get(id);
    if (!op)
      FAIL("get " << id << ": " << message_of(op.error()));
    if (is_terminal(op->state))
      return h->finish(id);
    auto polls = log->polls().size();
    auto seen = h->seen.size();
    auto timers = clk->timers_set();
    if (auto due = clk->next_due(); due && *due > clk->now())
      clk->advance(*due - clk->now());
    else if (due)
      clk->advance(duration{0});
    // Until the engine reacts (an event, a poll, or a timer set: a retry,
    // the monitor's next look); the bound only ends a reaction that never
    // comes.
    auto until = std::chrono::steady_clock::now() + 2s;
    while (h->seen.size() == seen && log->polls().size() == polls && clk->timers_set() == timers
           && std::chrono::steady_clock::now() < until)
      h->pump(std::chrono::milliseconds(10));
  }
  FAIL("operation " << id << " did not finish");
  return {};
}

std::vector<event> workflow_setup::of(const std::string& id, event_type type) const {
  std::vector<event> out;
  for (auto& e : h->seen)
    if (e.operation_id == id && e.type == type)
      out.push_back(e);
  return out;
}

boost::json::object location_json() {
  return {{"name", "dc1"}, {"type", "sim"}, {"properties", {{"password", "hunter2"}}}};
}

boost::json::object provision_input(std::string tpl) {
  return {{"name", "rt1"},
          {"deployment_location", location_json()},
          {"template", std::move(tpl)},
          {"template_type", "sim"}};
}

infra::deployment_location dc1() {
  infra::deployment_location loc;
  loc.name = "dc1";
  return loc;
}

std::string infra_id(const operation& op, const char* key) {
  return std::string(op.data.at(key).at("infrastructure_id").as_string());
}

} // namespace stepwise::test
