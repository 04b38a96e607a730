// The `children` workload: a fan-out of N child operations and its join.
#include "bench/children_workload.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "bench/proc_stats.hpp"
#include "bench/scratch_store.hpp"
#include "bench/stats.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "storage/open_store.hpp"

#include "git_sha.hpp"

namespace stepwise::bench {

namespace {

registry children_workflows(size_t n, size_t limit, bool inline_steps) {
  registry reg;
  auto leaf = make_step("work", [](step_context& ctx) {
    ctx.data()["t"] = to_micros(ctx.now());
    return done();
  });
  (void)reg.add(
    std::move(workflow("bench_leaf", 1).step(1, leaf.running_inline(inline_steps)).limit(limit)));
  (void)reg.add(std::move(workflow("bench_fanout", 1)
                            .step(1, make_step("fan",
                                               [n](step_context& ctx) {
                                                 for (size_t i = 0; i < n; ++i)
                                                   ctx.start_child("bench_leaf", {});
                                                 return done();
                                               }))
                            .step(2, await_children("join", "fan"))));
  return reg;
}

/// One run on a fresh actor system and store; prints its line. Returns
/// false when it could not run; clears `all_done` when the parent did not
/// succeed.
bool run_once(const cli_options& o, int run, bool& all_done) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  engine_config ec;
  ec.store_uri = o.store.empty() ? fresh_sqlite_uri("children", run) : o.store;
  ec.step_workers = o.pool;
  ec.max_backlog = 0;
  auto st = open_store(ec.store_uri);
  if (!st) {
    std::cerr << "stepwise-bench: " << message_of(st.error()) << '\n';
    return false;
  }
  auto eng = engine::launch(sys, ec, children_workflows(o.n, o.child_limit, o.inline_steps), *st);
  if (!eng) {
    std::cerr << "stepwise-bench: " << message_of(eng.error()) << '\n';
    return false;
  }
  // The most children in progress at once, as the admission rounds count
  // them: the limit at work.
  std::atomic<bool> sampling{true};
  std::atomic<int64_t> peak_running{0};
  std::thread sampler{[&] {
    while (sampling) {
      auto counts = eng->admission();
      if (auto i = counts.find("bench_leaf"); i != counts.end())
        peak_running = std::max(peak_running.load(), i->second.running);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }};
  reset_peak_rss(0);
  auto rss0 = rss_kib();
  auto cpu0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  auto started = eng->start({"bench_fanout", std::nullopt, {}, {}, std::nullopt, {}, {}, {}});
  caf::expected<operation> ended =
    started
      ? eng->wait(started->op.id,
                  std::chrono::duration_cast<duration>(std::chrono::duration<double>(o.limit_s)))
      : caf::expected<operation>{started.error()};
  auto wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto cpu = cpu_seconds() - cpu0;
  sampling = false;
  sampler.join();
  bool ok = ended && ended->state == op_state::succeeded;
  all_done = all_done && ok;
  size_t children = 0;
  if (ok)
    if (auto* r = ended->data.if_contains("children_results"))
      children = r->at("fan").as_object().size();
  auto& m = eng->stats();
  auto commits = m.commits.load();
  auto mean = [&](const auto& h, double scale) {
    return commits > 0
             ? static_cast<double>(h.sum_micro.load()) / scale / static_cast<double>(commits)
             : 0.0;
  };
  boost::json::object line{
    {"engine", "stepwise"},
    {"workload", "children"},
    {"n", o.n},
    {"run", run},
    {"via", "embedded"},
    {"store", eng->store_backend()},
    {"completed", children},
    {"errors", ok ? 0 : 1},
    {"wall_s", wall},
    {"ops_per_s", static_cast<double>(children) / wall},
    {"cpu_s", {{"engine", cpu}, {"store", 0.0}}},
    {"peak_rss_mib", {{"engine", peak_rss_kib() / 1024}, {"store", 0}}},
    {"rss_added_mib", (peak_rss_kib() - rss0) / 1024},
    {"peak_running_children", peak_running.load()},
    {"commits", commits},
    {"mean_commit_batch", mean(m.commit_batch_size, 1e6)},
    {"mean_commit_ms", mean(m.commit_latency_seconds, 1e3)},
    {"settings",
     {{"synchronous", "FULL"},
      {"child_limit", o.child_limit},
      {"pool", o.pool},
      {"steps", o.inline_steps ? "inline" : "pool"}}},
    {"version", STEPWISE_GIT_SHA},
    {"ts", format_time(std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()))}};
  if (!ok)
    line["error"] =
      ended ? "the parent ended " + std::string{to_string(ended->state)} + ": " + ended->error
            : message_of(ended.error());
  std::cout << boost::json::serialize(line) << std::endl;
  eng->shutdown();
  remove_scratch(ec.store_uri);
  return true;
}

} // namespace

int run_children(const cli_options& o) {
  return run_each(o.runs, [&](int run, bool& all_done) { return run_once(o, run, all_done); });
}

} // namespace stepwise::bench
