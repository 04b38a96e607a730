// The `io` workload embedded: the engine in this process, on the simulated
// cloud with a latency per call, answered through the engine's clock.
#include "bench/io_workload.hpp"

#include <iostream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include "actors/real_clock.hpp"
#include "bench/proc_sampler.hpp"
#include "bench/proc_stats.hpp"
#include "bench/scratch_store.hpp"
#include "bench/stats.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "infra/delayed_calls.hpp"
#include "infra/monitor.hpp"
#include "infra/sim_driver.hpp"
#include "storage/open_store.hpp"
#include "workflows/infrastructure.hpp"

namespace stepwise::bench {

namespace {

/// One run on a fresh actor system and store; prints its line. Returns
/// false when it could not run; clears `all_done` when an operation did
/// not succeed.
bool run_once(const io_options& o, int run, bool& all_done) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  auto clk = std::make_shared<real_clock>(sys);
  auto later = std::make_shared<infra::delayed_calls>(sys, clk);
  infra::sim_config sc;
  sc.call_latency = std::chrono::milliseconds(o.call_ms);
  auto sim = std::make_shared<infra::sim_driver>(sc, clk, later);
  auto polls = std::make_shared<infra::monitor_stats>();
  infra::monitor_options mo;
  auto monitor = infra::spawn_monitor(sys, sim, clk, mo, polls);
  engine_config ec;
  ec.store_uri = o.store.empty() ? fresh_sqlite_uri("io", run) : o.store;
  ec.clock = clk;
  // As `stepwise serve`: secret values sealed (a key for this scratch store).
  auto key = key_ring::generate("bench");
  auto ring = key ? key_ring::of({*key}) : caf::expected<key_ring>{key.error()};
  if (!ring) {
    std::cerr << "stepwise-bench: " << message_of(ring.error()) << '\n';
    return false;
  }
  ec.secret_keys = std::make_shared<const key_ring>(std::move(*ring));
  auto st = open_store(ec.store_uri);
  if (!st) {
    std::cerr << "stepwise-bench: " << message_of(st.error()) << '\n';
    return false;
  }
  registry reg;
  workflows::infrastructure_deps deps;
  deps.driver = sim;
  deps.monitor = monitor;
  deps.read_operation = [s = *st](const std::string& id) { return s->load(id); };
  if (auto ok = workflows::add_infrastructure_workflows(reg, std::move(deps)); !ok) {
    std::cerr << "stepwise-bench: " << message_of(ok.error()) << '\n';
    return false;
  }
  auto eng = engine::launch(sys, ec, std::move(reg), *st);
  if (!eng) {
    std::cerr << "stepwise-bench: " << message_of(eng.error()) << '\n';
    return false;
  }
  auto load0 = load_average();
  reset_peak_rss(0);
  proc_sampler threads{0, std::chrono::milliseconds(50)};
  auto cpu_before = thread_cpu_seconds(0);
  auto res = run_embedded(sys, *eng, "provision_runtime", o.n, o.limit_s, {}, io_input);
  all_done = all_done && res.completed == o.n;
  threads.stop();
  auto cpu_after = thread_cpu_seconds(0);
  auto line = io_line(o, run, res, load0);
  auto calls = sim->creates() + polls->polls.load();
  line["store"] = eng->store_backend();
  line["driver_calls"] = calls;
  line["polls_per_s"] = static_cast<double>(polls->polls.load()) / res.wall_s;
  line["cpu_s"] = {{"engine", res.cpu_s}};
  line["thread_cpu_s"] = thread_cpu_delta(cpu_before, cpu_after);
  line["peak_sleeping"] = res.peak_timers;
  // A commit that waits on the disk holds up every operation in it: runs
  // with a stall show it here.
  auto& lat = eng->stats().commit_latency_seconds;
  auto commits = lat.count.load();
  uint64_t slow = 0;
  for (size_t i = 1; i < lat.buckets.size(); ++i)
    if (lat.bounds[i - 1] >= 0.1)
      slow += lat.buckets[i].load();
  line["commits"] = commits;
  line["checkpoints"] = eng->stats().commit_batch_size.sum_micro.load() / 1'000'000;
  line["commit_ms"] = {{"mean", commits > 0 ? static_cast<double>(lat.sum_micro.load()) / 1e3
                                                / static_cast<double>(commits)
                                            : 0.0},
                       {"over_100ms", slow}};
  line["peak_rss_mib"] = {{"engine", peak_rss_kib() / 1024}};
  // Counts this process's every thread: the bench's main thread and the
  // sampler's too.
  line["peak_threads"] = {{"engine", threads.peak_threads()}};
  line["settings"] = {{"call_ms", o.call_ms},
                      {"driver", "sim (delayed calls)"},
                      {"driver_connections", nullptr},
                      {"monitor_rate", mo.max_polls_per_second},
                      {"step_workers", ec.step_workers},
                      {"synchronous", "FULL"}};
  std::cout << boost::json::serialize(line) << std::endl;
  eng->shutdown();
  caf::anon_send_exit(monitor, caf::exit_reason::user_shutdown);
  remove_scratch(ec.store_uri);
  return true;
}

} // namespace

int run_io_embedded(const io_options& o) {
  return run_each(o.runs, [&](int run, bool& all_done) { return run_once(o, run, all_done); });
}

} // namespace stepwise::bench
