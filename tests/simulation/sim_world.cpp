#include "tests/simulation/sim_world.hpp"

#include "actors/operation_actor.hpp"
#include "tests/simulation/describe.hpp"

#include <algorithm>

#include <caf/event_based_actor.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>

namespace stepwise::sim {

namespace {

/// Runs each request job it gets, on behalf of the simulated clients.
bridge_actor::behavior_type client_actor(bridge_actor::pointer self, int) {
  return {[=](bridge_job& job) { job.run(self); }};
}

/// Checks that the committed events reach a subscriber in log order.
event_listener::behavior_type subscriber_actor(event_listener::pointer, sim_log* log) {
  auto last = std::make_shared<int64_t>(0);
  return {[=](event_batch& batch) {
    for (auto& e : batch.events) {
      log->check_lazy(e.seq > *last, [&] {
        return "a subscriber got event seq " + std::to_string(e.seq) + " after seq "
               + std::to_string(*last);
      });
      *last = e.seq;
    }
  }};
}

/// Passes a task offer on to the broker once there is one.
caf::behavior relay_actor(caf::event_based_actor*, std::shared_ptr<caf::actor> to) {
  return {[to](task_offer_atom a, task_offer& offer) { caf::anon_send(*to, a, std::move(offer)); }};
}

} // namespace

sim_world::sim_world(std::shared_ptr<sim_world_state> outside, std::shared_ptr<sim_store> store,
                     engine_config cfg, time_point now, uint32_t node, size_t workers)
  : outside_(std::move(outside)), store_(std::move(store)), node_(node), workers_(workers) {
  cfg_.set("scheduler.policy", caf::atom("testing"));
  cfg_.set("logger.console", caf::atom("none"));
  cfg_.set("logger.file-verbosity", caf::atom("quiet"));
  sys_ = std::make_unique<caf::actor_system>(cfg_);
  sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(sys_->scheduler());
  clk_ = std::make_shared<virtual_clock>(now);
  cfg.clock = clk_;
  store_->time = clk_; // the store's time (leases) is this process's
  // Owner ids from the run, not from entropy: the store orders leases by
  // them, so a seed replays exactly.
  cfg.owner_ids = [node, joins = 0]() mutable {
    return "node" + std::to_string(node) + "." + std::to_string(++joins);
  };
  watcher_ = sys_->spawn(sim_watcher, outside_);
  auto broker = std::make_shared<caf::actor>();
  relay_ = sys_->spawn(relay_actor, broker);
  auto parts = launch_runtime(*sys_, cfg, sim_workflows(outside_, watcher_, relay_), store_,
                              drive::by_hand, node);
  if (!parts) {
    launch_error_ = std::move(parts.error());
    return;
  }
  parts_ = std::move(*parts);
  *broker = caf::actor_cast<caf::actor>(parts_.rt->tasks);
  client_ = sys_->spawn(client_actor, 0);
  subscriber_ = sys_->spawn(subscriber_actor, &outside_->log);
  caf::anon_send(parts_.dispatcher, subscribe_atom::value, subscriber_);
}

sim_world::~sim_world() {
  // A crash: the calls in flight and the jobs of the workers are gone, the
  // writer is never driven again, so nothing more reaches the store.
  outside_->calls.clear();
  outside_->watches.clear();
  running_.clear();
  if (parts_.rt) {
    parts_.rt->stop();
    auto& live = dispatcher().live;
    for (auto& kv : live)
      caf::anon_send_exit(kv.second, caf::exit_reason::kill);
    parts_.rt->exit_parts(caf::exit_reason::kill);
    caf::anon_send_exit(parts_.dispatcher, caf::exit_reason::kill);
  }
  if (client_) {
    caf::anon_send_exit(client_, caf::exit_reason::kill);
    caf::anon_send_exit(subscriber_, caf::exit_reason::kill);
  }
  caf::anon_send_exit(watcher_, caf::exit_reason::kill);
  caf::anon_send_exit(relay_, caf::exit_reason::kill);
  // The pending timers hold their actors: drop them with the clock.
  clk_->forget(*sys_);
  sched_->run();
  if (parts_.rt) {
    parts_.rt->readers.clear();
    parts_.rt->writer.reset();
  }
  parts_ = {};
  client_ = nullptr;
  subscriber_ = nullptr;
  watcher_ = nullptr;
  relay_ = nullptr;
  auto* gone = sys_.get();
  sys_.reset();
  clk_->ended(gone);
}

dispatcher_state& sim_world::dispatcher() {
  auto* ptr = caf::actor_cast<caf::abstract_actor*>(parts_.dispatcher);
  return dynamic_cast<internal_dispatcher_actor::stateful_base<dispatcher_state>&>(*ptr).state;
}

std::string sim_world::deliver(size_t index, bool say) {
  auto& jobs = sched_->jobs;
  auto i = jobs.begin() + static_cast<std::ptrdiff_t>(index);
  std::rotate(jobs.begin(), i, i + 1);
  std::string what;
  if (say) {
    auto* actor = dynamic_cast<caf::scheduled_actor*>(jobs.front());
    auto* next = actor ? actor->mailbox().peek() : nullptr;
    what = actor ? std::string{actor->name()} + "#" + std::to_string(actor->id()) : "?";
    auto* op = dynamic_cast<operation_actor::stateful_base<operation_state>*>(actor);
    if (op && op->getf(caf::abstract_actor::is_initialized_flag)
        && !op->getf(caf::abstract_actor::is_terminated_flag))
      what += "[" + op->state.op.id + " " + std::string{to_string(op->state.op.state)}
              + (op->state.commit.busy() ? " committing" : "") + "]";
    what += next ? " <- " + describe(next->content()) : " (starts)";
  }
  sched_->run_once();
  return what;
}

void sim_world::advance(duration d) {
  clk_->advance(d);
  sched_->advance_time(std::chrono::duration_cast<caf::timespan>(d));
}

void sim_world::hear(const notices& got, bool first) {
  if (parts_.rt && parts_.rt->router)
    parts_.rt->router->route(got, first);
}

void sim_world::ask(client_job job) {
  dispatcher_actor target = parts_.dispatcher;
  caf::anon_send(client_, bridge_job{[job{std::move(job)}, target](bridge_actor::pointer self) {
                   job(self, target);
                 }});
}

void sim_world::ask_tasks(worker_job job) {
  tasks_actor target = parts_.rt->tasks;
  caf::anon_send(client_, bridge_job{[job{std::move(job)}, target](bridge_actor::pointer self) {
                   job(self, target);
                 }});
}

bool sim_world::quiet() {
  return !sched_->has_job() && running_.empty() && pool().backlog() == 0 && !writer().has_work()
         && !writer().admission_due();
}

} // namespace stepwise::sim
