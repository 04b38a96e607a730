#include "bench/schedules_workload.hpp"

#include <unistd.h>

#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "bench/proc_sampler.hpp"
#include "bench/proc_stats.hpp"
#include "bench/scratch_store.hpp"
#include "bench/stats.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "storage/open_store.hpp"

namespace stepwise::bench {

using namespace std::chrono_literals;

namespace {

/// What the subscriber saw of the fires.
struct fire_log {
  std::mutex mtx;
  /// "schedule fire-time" of each schedule_fired event.
  std::multiset<std::pair<std::string, time_point>> fires;
  /// Wall-clock lateness of each, in ms.
  std::vector<double> late_ms;
};

event_listener::behavior_type fire_listener(event_listener::pointer, fire_log* log) {
  return {[log](event_batch& b) {
    auto now = std::chrono::system_clock::now();
    std::lock_guard<std::mutex> guard{log->mtx};
    for (auto& e : b.events) {
      if (e.type != event_type::schedule_fired)
        continue;
      auto t = parse_time(std::string{e.extra.at("fire_time").as_string()});
      if (!t)
        continue;
      log->fires.emplace(std::string{e.extra.at("schedule").as_string()}, *t);
      log->late_ms.push_back(std::chrono::duration<double, std::milli>(now - *t).count());
    }
  }};
}

registry tick_workflow() {
  registry reg;
  (void)reg.add(workflow("bench_tick", 1).step(1, make_step("tick", [](step_context& ctx) {
                                                 ctx.data()["t"] = wall_us();
                                                 return done();
                                               })));
  return reg;
}

/// Creates the schedules from `threads` threads at once (their commits
/// share batches); returns how many failed.
size_t create_all(engine& eng, const cli_options& o, std::chrono::seconds every) {
  std::atomic<size_t> next{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < o.n;) {
        schedule s;
        s.id = "bench-" + std::to_string(i);
        s.workflow = "bench_tick";
        s.every = every;
        s.overlap = overlap_policy::allow;
        if (!o.aligned)
          s.offset = std::chrono::duration_cast<duration>(every) * i / o.n;
        if (!eng.create_schedule(s))
          ++failed;
      }
    });
  for (auto& t : threads)
    t.join();
  return failed;
}

} // namespace

int run_schedules(const cli_options& o) {
  auto every = std::chrono::seconds{o.every_s};
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  engine_config ec;
  ec.store_uri = o.store.empty() ? fresh_sqlite_uri("", 1) : o.store;
  ec.step_workers = o.pool;
  auto st = open_store(ec.store_uri);
  if (!st) {
    std::cerr << "stepwise-bench: " << message_of(st.error()) << '\n';
    return 1;
  }
  auto eng = engine::launch(sys, ec, tick_workflow(), *st);
  if (!eng) {
    std::cerr << "stepwise-bench: " << message_of(eng.error()) << '\n';
    return 1;
  }
  auto threads_idle = status_of(0, "Threads");
  auto rss_idle = rss_kib();
  auto cpu0 = cpu_seconds();
  auto created0 = std::chrono::steady_clock::now();
  auto failed = create_all(*eng, o, every);
  auto create_s =
    std::chrono::duration<double>(std::chrono::steady_clock::now() - created0).count();
  // Idle schedules: what 10,000 of them cost, between two fires.
  auto threads_with = status_of(0, "Threads");
  auto rss_with = rss_kib();
  fire_log log;
  eng->subscribe(sys.spawn(fire_listener, &log));
  auto from = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()) + 1s;
  auto until = from + std::chrono::seconds{static_cast<int64_t>(o.duration_s)};
  proc_sampler sampler{0, std::chrono::milliseconds(50)};
  std::this_thread::sleep_until(until + 2s); // the fires in flight at the end arrive
  sampler.stop();
  auto cpu_s = cpu_seconds() - cpu0;
  // Every fire time in [from, until) of every schedule, once.
  size_t expected = 0, missed = 0, doubled = 0;
  std::vector<double> late;
  {
    std::lock_guard<std::mutex> guard{log.mtx};
    for (size_t i = 0; i < o.n; ++i) {
      schedule s;
      s.every = every;
      if (!o.aligned)
        s.offset = std::chrono::duration_cast<duration>(every) * i / o.n;
      auto id = "bench-" + std::to_string(i);
      for (auto t = next_fire(s, from - 1us); t && *t < until; t = next_fire(s, *t)) {
        ++expected;
        auto n = log.fires.count({id, *t});
        missed += n == 0;
        doubled += n > 1;
      }
    }
    late = log.late_ms;
  }
  eng->shutdown();
  remove_scratch(ec.store_uri);
  boost::json::object line{
    {"engine", "stepwise"},
    {"workload", "schedules"},
    {"n", o.n},
    {"every_s", o.every_s},
    {"duration_s", o.duration_s},
    {"offsets", o.aligned ? "aligned" : "spread"},
    {"create_s", create_s},
    {"create_failed", failed},
    {"fires_expected", expected},
    {"fires_seen", late.size()},
    {"missed", missed},
    {"doubled", doubled},
    {"lateness_ms",
     {{"p50", quantile(late, 0.5)},
      {"p90", quantile(late, 0.9)},
      {"p99", quantile(late, 0.99)},
      {"max", quantile(late, 1.0)}}},
    {"threads",
     {{"idle", threads_idle},
      {"with_schedules", threads_with},
      {"peak_during_fires", sampler.peak_threads()}}},
    {"rss_mib",
     {{"idle", rss_idle / 1024.0},
      {"with_schedules", rss_with / 1024.0},
      {"peak", sampler.peak_rss_kib() / 1024.0}}},
    {"bytes_per_idle_schedule", (rss_with - rss_idle) * 1024.0 / static_cast<double>(o.n)},
    {"cpu_s", cpu_s},
    {"settings",
     {{"store", ec.store_uri.substr(0, ec.store_uri.find(':'))},
      {"pool", o.pool},
      {"nproc", std::thread::hardware_concurrency()}}},
  };
  std::cout << boost::json::serialize(line) << std::endl;
  return missed == 0 && doubled == 0 && failed == 0 ? 0 : 1;
}

} // namespace stepwise::bench
