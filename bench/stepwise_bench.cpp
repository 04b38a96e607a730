// stepwise-bench: the benchmark workloads (bench/README.md), one JSON line
// per run. See bench/README.md for the figures and how they were produced.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <tuple>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "bench/children_workload.hpp"
#include "bench/cli_options.hpp"
#include "bench/history.hpp"
#include "bench/steady_workload.hpp"
#include "bench/embedded_driver.hpp"
#include "bench/driver_process.hpp"
#include "bench/http_driver.hpp"
#include "bench/io_workload.hpp"
#include "bench/schedules_workload.hpp"
#include "bench/proc_stats.hpp"
#include "bench/sink_bench.hpp"
#include "bench/streams_workload.hpp"
#include "bench/tasks_workload.hpp"
#include "bench/scratch_store.hpp"
#include "bench/stats.hpp"
#include "workflows/bench.hpp"
#include "engine/errc.hpp"
#include "engine/retention_store.hpp"
#include "storage/open_store.hpp"
#include "storage/postgresql.hpp"

#include "git_sha.hpp"

using namespace stepwise;

namespace {

std::string now_iso() {
  return format_time(std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()));
}

/// A fresh SQLite file per run unless the caller named a store.
/// The store's size on disk (`retention_store::size_bytes`), or null.
boost::json::value store_bytes(store& st) {
  auto* r = st.retention();
  auto n = r != nullptr ? r->size_bytes() : caf::expected<int64_t>{int64_t{-1}};
  if (!n || *n < 0)
    return nullptr;
  return *n;
}

std::string store_for_run(const bench::cli_options& o, int run) {
  if (!o.store.empty())
    return o.store;
  return bench::fresh_sqlite_uri("", run);
}

/// Returns the figure a workload reads from an operation's durable data:
/// W2 lateness or W3 overshoot, in ms; none for other workloads.
std::optional<double> figure_of(const std::string& workload, const boost::json::object& d,
                                double sleep_ms) {
  if (workload == "retry" && d.contains("s3"))
    return static_cast<double>(d.at("s3").at("late_us").to_number<int64_t>()) / 1000.0;
  if (workload == "timers" && d.contains("s1") && d.contains("s2")) {
    auto t1 = d.at("s1").at("t").to_number<int64_t>();
    auto t2 = d.at("s2").at("t").to_number<int64_t>();
    return static_cast<double>(t2 - t1) / 1000.0 - sleep_ms;
  }
  return std::nullopt;
}

/// Reads the durable step results of the finished operations.
void durable_figures(engine& eng, const std::vector<std::string>& ids, const std::string& workload,
                     double sleep_ms, std::vector<double>& out) {
  // The other workloads have no such figure: reading every operation back
  // would only add N store reads to the process's work (and its profile).
  if (workload != "retry" && workload != "timers")
    return;
  for (auto& id : ids) {
    auto op = eng.get(id);
    if (!op)
      continue;
    if (auto f = figure_of(workload, op->data, sleep_ms))
      out.push_back(*f);
  }
}

/// Sleepers: launches a second engine on the stopped one's store, as a
/// restart would, and measures how long until it has every sleeper back
/// (its launch loads them), with its memory then.
boost::json::object recover_sleepers(caf::actor_system& sys, const engine_config& ec,
                                     const bench::cli_options& o) {
  auto rss0 = bench::rss_kib();
  auto t0 = std::chrono::steady_clock::now();
  auto st = open_store(ec.store_uri);
  if (!st)
    return {{"error", message_of(st.error())}};
  auto eng = engine::launch(sys, ec, workflows::bench_workflows(), *st);
  if (!eng)
    return {{"error", message_of(eng.error())}};
  auto limit = t0 + std::chrono::duration<double>(o.limit_s);
  while (eng->stats().operations_sleeping.load() < static_cast<int64_t>(o.n)
         && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  boost::json::object out{{"recover_s", took},
                          {"sleeping", eng->stats().operations_sleeping.load()},
                          {"rss_mib", bench::rss_kib() / 1024}};
  // Then as it sleeps on: the engine hands the loaded rows' heap back
  // within its next housekeeping ticks (one a second).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  out["rss_settled_mib"] = bench::rss_kib() / 1024;
  out["rss_added_settled_mib"] = (bench::rss_kib() - rss0) / 1024;
  eng->shutdown();
  return out;
}

/// Returns the fields of the shared output format that both ways in share.
boost::json::object result_line(const bench::cli_options& o, int run, const std::string& via,
                                const std::string& store, const bench::run_result& res,
                                const std::vector<double>& figures) {
  auto steps = o.workload == "timers" ? 2 : 5;
  auto q = [&](double p, const char* workload) {
    return o.workload == workload ? bench::quantile(figures, p) : 0.0;
  };
  return {
    {"engine", "stepwise"},
    {"workload", o.workload},
    {"n", o.n},
    {"k", steps},
    {"run", run},
    {"via", via},
    {"store", store},
    {"completed", res.completed},
    {"errors", res.errors},
    {"wall_s", res.wall_s},
    {"ops_per_s", static_cast<double>(res.completed) / res.wall_s},
    {"steps_per_s", static_cast<double>(res.completed * static_cast<size_t>(steps)) / res.wall_s},
    {"latency_ms",
     {{"p50", bench::quantile(res.latency_ms, 0.5)},
      {"p99", bench::quantile(res.latency_ms, 0.99)},
      {"max", bench::quantile(res.latency_ms, 1.0)}}},
    {"retry_late_ms", {{"p50", q(0.5, "retry")}, {"p99", q(0.99, "retry")}}},
    {"timer_overshoot_ms", {{"p50", q(0.5, "timers")}, {"p99", q(0.99, "timers")}}},
    {"peak_concurrent_timers", res.peak_timers},
    {"cpu_s", {{"engine", res.cpu_s}, {"store", 0.0}}},
    {"version", STEPWISE_GIT_SHA},
    {"ts", now_iso()}};
}

/// The workloads through a running server's HTTP API (benchmarks.md `http`).
int run_via_http(const bench::cli_options& o) {
  auto workflow = workflows::bench_workflow_of(o.workload, o.inline_steps);
  auto store = bench::http_store_backend({o.url, o.token});
  if (store == "unknown") {
    std::cerr << "stepwise-bench: no ready server at " << o.url << '\n';
    return 1;
  }
  for (int run = 1; run <= o.runs; ++run) {
    auto res = bench::run_http({o.url, o.token}, workflow, o.n, o.concurrency, o.limit_s);
    std::vector<double> figures;
    for (auto& id : res.ids) {
      if (o.workload == "steps")
        break;
      auto d = bench::http_operation_data({o.url, o.token}, id);
      if (d.is_object())
        if (auto f = figure_of(o.workload, d.as_object(), 1000.0))
          figures.push_back(*f);
    }
    auto line = result_line(o, run, "http", store, res, figures);
    line["peak_rss_mib"] = {{"engine", res.rss_at_peak_kib / 1024}, {"store", 0}};
    line["settings"] = {{"synchronous", "server's"},
                        {"steps", o.inline_steps ? "inline" : "pool"},
                        {"concurrency", o.concurrency},
                        {"url", o.url}};
    std::cout << boost::json::serialize(line) << std::endl;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  // As the CLI: a write to a connection the server closed must be an error,
  // not SIGPIPE (httplib's client does not ignore it).
  std::signal(SIGPIPE, SIG_IGN);
  stepwise::use_postgresql();
  bench::cli_options o;
  std::string err;
  if (!bench::parse(argc, argv, o, err))
    return bench::usage(err.c_str());
  if (o.help)
    return bench::usage(nullptr);
  if (o.serve_driver)
    return bench::serve_driver(o.listen, o.io.call_ms);
  if (o.workload == "schedules")
    return bench::run_schedules(o);
  if (o.workload == "children")
    return bench::run_children(o);
  if (o.workload == "tasks")
    return bench::run_tasks(o);
  if (o.workload == "streams")
    return bench::run_streams(o);
  if (o.workload == "steady")
    return bench::run_steady(o);
  if (o.workload == "io") {
    auto io = o.io;
    std::tie(io.n, io.runs, io.via, io.limit_s, io.store, io.concurrency) =
      std::tie(o.n, o.runs, o.via, o.limit_s, o.store, o.concurrency);
    io.url = o.url_given ? o.url : std::string();
    io.token = o.token;
    return io.via == "http" ? bench::run_io_http(io) : bench::run_io_embedded(io);
  }
  if (o.via == "http")
    return run_via_http(o);
  for (int run = 1; run <= o.runs; ++run) {
    caf::actor_system_config cfg;
    tune_actor_system(cfg);
    if (auto p = std::getenv("STEPWISE_BENCH_SCHEDULER"); p && std::string{p} == "stealing")
      cfg.set("scheduler.policy", caf::atom("stealing"));
    if (auto p = std::getenv("STEPWISE_BENCH_THREADS"))
      cfg.set("scheduler.max-threads", static_cast<size_t>(std::atoi(p)));
    caf::actor_system sys{cfg};
    engine_config ec;
    ec.store_uri = store_for_run(o, run);
    ec.step_workers = o.pool;
    ec.passivate_after = std::chrono::milliseconds(o.passivate_ms);
    ec.wake_lead = std::chrono::milliseconds(o.wake_lead_ms);
    ec.dispatch_lead = std::chrono::milliseconds(o.dispatch_lead_ms);
    // The workload bounds itself (--window); a million creates at once must
    // queue, not be refused as a slow store's backlog.
    ec.max_backlog = 0;
    ec.create_window = o.create_window;
    ec.retention = o.retention;
    ec.retention_batch = o.retention_batch;
    std::unique_ptr<bench::sink_bench> sinks;
    if (!o.sinks.empty()) {
      auto made = bench::sink_bench::make(
        o.sinks, std::chrono::milliseconds(static_cast<int64_t>(o.targets_down_s * 1000)));
      if (!made) {
        std::cerr << "stepwise-bench: " << message_of(made.error()) << '\n';
        return 2;
      }
      sinks = std::move(*made);
    }
    auto st = open_store(ec.store_uri);
    if (!st) {
      std::cerr << "stepwise-bench: " << message_of(st.error()) << '\n';
      return 1;
    }
    auto prefill_s = 0.0;
    if (o.prefill > 0) {
      auto t0 = std::chrono::steady_clock::now();
      if (auto err = bench::prefill(**st, o.prefill)) {
        std::cerr << "stepwise-bench: " << message_of(err) << '\n';
        return 1;
      }
      prefill_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    auto eng = engine::launch(
      sys, ec,
      workflows::bench_workflows(std::chrono::milliseconds(static_cast<int64_t>(o.sleep_s * 1000))),
      *st);
    if (!eng) {
      std::cerr << "stepwise-bench: " << message_of(eng.error()) << '\n';
      return 1;
    }
    if (sinks)
      if (auto err = sinks->start(sys, *eng, *st)) {
        std::cerr << "stepwise-bench: " << message_of(err) << '\n';
        return 1;
      }
    if (o.start_at_ms > 0)
      std::this_thread::sleep_until(
        std::chrono::system_clock::time_point{std::chrono::milliseconds(o.start_at_ms)});
    auto rss0 = bench::rss_kib();
    std::function<double()> store_cpu;
    if (o.store_pid > 0)
      store_cpu = [pid = o.store_pid] { return bench::tree_cpu_seconds(pid); };
    auto removed_before = eng->stats().retention_operations_removed.load();
    auto res =
      bench::run_embedded(sys, *eng, workflows::bench_workflow_of(o.workload, o.inline_steps), o.n,
                          o.limit_s, store_cpu, {}, o.window);
    auto removed_in_run = eng->stats().retention_operations_removed.load() - removed_before;
    // Right after the run: reading the figures back takes a while.
    boost::json::array sink_figures;
    if (sinks)
      sink_figures = sinks->finish(res.started_at_us, o.limit_s);
    std::vector<double> figures;
    durable_figures(*eng, res.ids, o.workload, o.sleep_s * 1000.0, figures);
    auto& m = eng->stats();
    auto commits = m.commits.load();
    auto mean = [&](const auto& h, double scale) {
      return commits > 0
               ? static_cast<double>(h.sum_micro.load()) / scale / static_cast<double>(commits)
               : 0.0;
    };
    auto line = result_line(o, run, o.via, eng->store_backend(), res, figures);
    line["peak_rss_mib"] = {{"engine", bench::peak_rss_kib() / 1024}, {"store", 0}};
    // What the run added at its peak, per operation (a burst's creates
    // while unanswered, the operations' actors).
    line["rss_per_op_bytes"] =
      o.n > 0 ? (bench::peak_rss_kib() - rss0) * 1024 / static_cast<int64_t>(o.n) : 0;
    line["settings"] = {
      {"synchronous", "FULL"},
      {"pool", o.pool},
      {"steps", o.inline_steps ? "inline" : "pool"},
      {"window", o.window},
      {"sleep_s", o.sleep_s},
      {"passivate_ms", o.passivate_ms},
      {"wake_lead_ms", o.wake_lead_ms},
      {"dispatch_lead_ms", o.dispatch_lead_ms},
      {"rss_per_sleeping_op_bytes",
       res.peak_timers > 0 ? (res.rss_at_peak_kib - rss0) * 1024 / res.peak_timers : 0}};
    line["cpu_s"] = {{"engine", res.cpu_s}, {"store", res.store_cpu_s}};
    line["window_us"] = {res.started_at_us, res.ended_at_us};
    if (!eng->owner().empty())
      line["settings"].as_object()["lease_ttl_ms"] = ec.lease_ttl.count() / 1000;
    line["commits"] = commits;
    line["mean_commit_batch"] = mean(m.commit_batch_size, 1e6);
    line["mean_commit_ms"] = mean(m.commit_latency_seconds, 1e3);
    if (o.workload == "steps") {
      line["prefill"] = {
        {"operations", o.prefill}, {"seconds", prefill_s}, {"store_bytes", store_bytes(**st)}};
      line["list_ms"] = bench::list_timings(*eng, o.prefill);
      if (o.retention > duration::zero())
        line["retention"] = {{"seconds", std::chrono::duration<double>(o.retention).count()},
                             {"batch", o.retention_batch},
                             {"removed_operations", m.retention_operations_removed.load()},
                             {"removed_during_run", removed_in_run},
                             {"removed_events", m.retention_events_removed.load()}};
    }
    if (sinks) {
      line["sinks"] = std::move(sink_figures);
      if (o.targets_down_s > 0)
        line["settings"].as_object()["targets_down_s"] = o.targets_down_s;
      sinks->stop();
    }
    eng->shutdown();
    if (o.workload == "sleepers" && res.completed == o.n)
      line["recovery"] = recover_sleepers(sys, ec, o);
    std::cout << boost::json::serialize(line) << std::endl;
    bench::remove_scratch(ec.store_uri);
  }
  return 0;
}
