#include "tests/simulation/scenario.hpp"

#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "tests/simulation/describe.hpp"
#include "tests/simulation/invariants.hpp"

namespace stepwise::sim {

namespace {

std::set<std::string> admitted_workflows() {
  std::set<std::string> out;
  for (auto& name : sim_workflow_names)
    if (takes_part(name))
      out.insert(name);
  return out;
}

} // namespace

scenario::scenario(engine_config cfg) {
  store = std::make_shared<sim_store>(log, rng_, sim_limits(), admitted_workflows());
  outside = std::make_shared<sim_world_state>(log, *store);
  // The requests a test sends are about anything.
  store->note_request("scenario", "");
  cfg.max_backlog = 0;
  cfg.log = [](log_level, std::string_view) {};
  world_ =
    std::make_unique<sim_world>(outside, store, cfg, from_micros(1'800'000'000'000'000), 1, 4);
  settle();
}

scenario::~scenario() {
  taken_.clear();
  if (log.failed())
    (void)world_.release(); // see simulation.cpp
}

std::string scenario::deliver_one(bool say) {
  auto what = world_->deliver(0, say);
  log.note(what);
  check_actors(log, *world_);
  return what;
}

void scenario::deliver() {
  while (world_->sched().has_job())
    deliver_one(log.tracing());
}

bool scenario::deliver_through(const std::string& receiver, const std::string& words) {
  while (world_->sched().has_job()) {
    auto what = deliver_one(true);
    if (what.find(receiver) != std::string::npos && what.find(words) != std::string::npos)
      return true;
  }
  return false;
}

void scenario::commit() {
  deliver();
  while (world_->writer().has_work() || world_->writer().admission_due()) {
    if (!world_->writer().write_once())
      world_->writer().admit_once();
    deliver();
  }
}

void scenario::settle() {
  deliver();
  commit();
}

bool scenario::take_job() {
  auto job = world_->pool().take();
  if (!job)
    return false;
  taken_.push_back(std::move(*job));
  return true;
}

void scenario::run_job() {
  auto job = std::move(taken_.front());
  taken_.erase(taken_.begin());
  job();
}

void scenario::run_jobs() {
  settle();
  while (!taken_.empty() || take_job()) {
    run_job();
    settle();
  }
}

void scenario::advance(duration d) {
  world_->advance(d);
  deliver();
}

bool scenario::report_watch() {
  auto& all = outside->watches;
  if (all.empty())
    return false;
  auto req = std::move(all.front());
  all.erase(all.begin());
  caf::anon_send(req.reply_to, watch_done_atom::value, sim::settle(req));
  return true;
}

namespace {

const operation& op_of(const operation& x) {
  return x;
}

const operation& op_of(const start_result& x) {
  return x.op;
}

const operation& op_of(const signal_result& x) {
  return x.op;
}

} // namespace

template <class T, class... Ts>
void scenario::ask(std::tuple<Ts...> msg) {
  answer_.reset();
  last_error.clear();
  world_->ask({[this, msg](bridge_actor::pointer self, const dispatcher_actor& dispatcher) {
    auto request = [&](const auto&... xs) {
      return self->request(dispatcher, caf::infinite, xs...);
    };
    std::apply(request, msg)
      .then([this](T& x) { answer_ = op_of(x); },
            [this](caf::error& err) { last_error = message_of(err); });
  }});
}

void scenario::settle_but(const std::string& held) {
  for (;;) {
    auto& jobs = world_->sched().jobs;
    size_t i = 0;
    for (; i < jobs.size(); ++i) {
      auto* actor = dynamic_cast<caf::scheduled_actor*>(jobs[i]);
      auto* next = actor ? actor->mailbox().peek() : nullptr;
      if (!next || sim::describe(next->content()).find(held) == std::string::npos)
        break;
    }
    if (i < jobs.size()) {
      log.note(world_->deliver(i, log.tracing()));
      check_actors(log, *world_);
      continue;
    }
    auto& w = world_->writer();
    if (w.has_work())
      w.write_once();
    else if (w.admission_due())
      w.admit_once();
    else
      return;
  }
}

std::string scenario::broken() const {
  std::string out;
  for (auto& v : log.violations)
    out += v + "\n";
  return out;
}

std::optional<operation> scenario::start(const std::string& workflow, boost::json::object input) {
  start_request req;
  req.workflow = workflow;
  req.input = std::move(input);
  req.by = "scenario";
  ask<start_result>(std::make_tuple(start_atom::value, std::move(req)));
  settle();
  return answer_;
}

void scenario::command(const std::string& id, stepwise::command cmd) {
  ask<operation>(std::make_tuple(command_atom::value, id, command_request{cmd, "scenario"}));
}

void scenario::signal(const std::string& id, const std::string& name, std::string signal_id) {
  signal_request sig;
  sig.name = name;
  sig.signal_id = std::move(signal_id);
  sig.by = "scenario";
  ask<signal_result>(std::make_tuple(signal_atom::value, id, std::move(sig)));
}

void scenario::get(const std::string& id) {
  ask<operation>(std::make_tuple(get_atom::value, id));
}

std::optional<operation> scenario::stored(const std::string& id) {
  return store->peek(id);
}

schedule periodic_steps(std::string id, duration period) {
  schedule s;
  s.id = std::move(id);
  s.workflow = "sim.steps";
  s.every = period;
  return s;
}

} // namespace stepwise::sim
