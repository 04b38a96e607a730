#include "bench/embedded_driver.hpp"

#include <chrono>
#include <future>
#include <unordered_map>

#include <caf/typed_event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "engine/requests.hpp"
#include "bench/proc_stats.hpp"
#include "bench/stats.hpp"

namespace stepwise::bench {

namespace {

using steady = std::chrono::steady_clock;

struct driver_state {
  static inline const char* name = "bench.driver";
  engine* eng = nullptr;
  size_t n = 0;
  std::vector<steady::time_point> submitted;
  std::unordered_map<std::string, size_t> index;
  std::unordered_map<std::string, steady::time_point> finished_early;
  std::unordered_map<std::string, bool> failed_early;
  run_result res;
  std::shared_ptr<std::promise<run_result>> done;
  bool delivered = false;
  bool until_sleeping = false;
  int settle_ticks = 0;
  /// Creates sent and answered; at most `window` unanswered (0: no bound).
  size_t sent = 0;
  size_t answered = 0;
  size_t window = 0;
  input_fn input;
  std::string workflow;
};

using stop_atom = caf::atom_constant<caf::atom("bench_stop")>;
using tick_atom = caf::atom_constant<caf::atom("bench_tick")>;

void deliver(driver_state& st) {
  if (st.delivered)
    return;
  st.delivered = true;
  st.done->set_value(std::move(st.res));
}

/// Gets the committed events, the answers to its starts (sent, not
/// requested: see submit_more) and its own stop and tick.
using driver_actor =
  event_listener::extend<caf::reacts_to<start_result>, caf::reacts_to<caf::error>,
                         caf::reacts_to<stop_atom>, caf::reacts_to<tick_atom>>;
using driver_ptr = driver_actor::stateful_pointer<driver_state>;

void sample(driver_ptr self) {
  auto& m = self->state.eng->stats();
  auto t = m.operations_sleeping.load() + m.timers_pending.load();
  if (t > self->state.res.peak_timers) {
    self->state.res.peak_timers = t;
    self->state.res.rss_at_peak_kib = rss_kib();
  }
}

void finish_one(driver_ptr self, const std::string& id, size_t idx, steady::time_point at,
                bool failed) {
  auto& st = self->state;
  auto ms = std::chrono::duration<double, std::milli>(at - st.submitted[idx]).count();
  st.res.latency_ms.push_back(ms);
  st.res.ids.push_back(id);
  if (failed)
    st.res.errors += 1;
  else
    st.res.completed += 1;
  if (st.res.completed + st.res.errors == st.n)
    deliver(st);
}

/// Sends the creates that the window allows.
void submit_more(driver_ptr self) {
  auto& st = self->state;
  // Plain sends, not request/then: the answers come back as messages, and
  // CAF 0.17 would look each of n pending handlers up linearly.
  while (st.sent < st.n && (st.window == 0 || st.sent - st.answered < st.window)) {
    auto i = st.sent++;
    start_request req;
    req.workflow = st.workflow;
    req.input = st.input ? st.input(i) : boost::json::object{{"i", i}};
    st.submitted[i] = steady::now();
    self->send(st.eng->dispatcher(), start_atom::value, std::move(req));
  }
}

driver_actor::behavior_type driver(driver_ptr self, engine* eng, std::string workflow, size_t n,
                                   std::shared_ptr<std::promise<run_result>> done, input_fn input,
                                   size_t window) {
  auto& st = self->state;
  st.done = std::move(done);
  st.until_sleeping = workflow.rfind("bench_sleepers", 0) == 0;
  st.eng = eng;
  st.window = window;
  st.input = std::move(input);
  st.workflow = std::move(workflow);
  // Subscribe before submitting: same sender, so the engine sees it first.
  self->send(eng->dispatcher(), subscribe_atom::value, event_listener{self});
  st.n = n;
  st.submitted.resize(n);
  submit_more(self);
  if (st.until_sleeping)
    self->send(self, tick_atom::value);
  return {
    [=](stop_atom) { deliver(self->state); },
    [=](tick_atom) {
      // Sleepers: done when every operation sleeps (no event says so).
      auto& st = self->state;
      sample(self);
      if (st.eng->stats().operations_sleeping.load() >= static_cast<int64_t>(st.n)) {
        // Give the engine's once-a-second housekeeping its turn, then read
        // what the sleepers cost.
        if (st.settle_ticks++ == 200) {
          st.res.rss_at_peak_kib = rss_kib();
          st.res.completed = st.n;
          deliver(st);
          return;
        }
      }
      self->delayed_send(self, std::chrono::milliseconds(10), tick_atom::value);
    },
    [=](start_result& r) {
      auto& st = self->state;
      st.answered += 1;
      submit_more(self);
      if (st.until_sleeping)
        return; // sleepers never finish: no need to remember them
      auto id = r.op.id;
      auto i = static_cast<size_t>(r.op.input->at("i").to_number<int64_t>());
      st.index.emplace(id, i);
      auto e = st.finished_early.find(id);
      if (e != st.finished_early.end()) {
        finish_one(self, id, i, e->second, st.failed_early[id]);
        st.finished_early.erase(e);
      }
    },
    [=](caf::error&) {
      auto& st = self->state;
      st.answered += 1;
      submit_more(self);
      st.res.errors += 1;
      if (st.res.completed + st.res.errors == st.n)
        deliver(st);
    },
    [=](event_batch& b) {
      auto now = steady::now();
      sample(self);
      auto& st = self->state;
      for (auto& e : b.events) {
        if (!is_terminal(e.type))
          continue;
        bool failed = e.type != event_type::operation_succeeded;
        auto i = st.index.find(e.operation_id);
        if (i == st.index.end()) {
          st.finished_early[e.operation_id] = now;
          st.failed_early[e.operation_id] = failed;
          continue;
        }
        finish_one(self, e.operation_id, i->second, now, failed);
      }
    },
  };
}

} // namespace

run_result run_embedded(caf::actor_system& sys, engine& eng, const std::string& workflow, size_t n,
                        double limit_s, const std::function<double()>& store_cpu,
                        const input_fn& input, size_t window) {
  auto prom = std::make_shared<std::promise<run_result>>();
  auto fut = prom->get_future();
  auto cpu0 = cpu_seconds();
  auto store0 = store_cpu ? store_cpu() : 0.0;
  auto started = wall_us();
  auto t0 = steady::now();
  auto a = sys.spawn(driver, &eng, workflow, n, prom, input, window);
  auto limit = std::chrono::duration<double>(limit_s);
  if (fut.wait_for(limit) != std::future_status::ready)
    caf::anon_send(a, stop_atom::value); // report what finished so far
  auto res = fut.get();
  res.wall_s = std::chrono::duration<double>(steady::now() - t0).count();
  res.cpu_s = cpu_seconds() - cpu0;
  res.store_cpu_s = store_cpu ? store_cpu() - store0 : 0.0;
  res.started_at_us = started;
  res.ended_at_us = wall_us();
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  return res;
}

} // namespace stepwise::bench
