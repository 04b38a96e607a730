#include "bench/steady_workload.hpp"

#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/json/serialize.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "bench/proc_stats.hpp"
#include "bench/scratch_store.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "engine/retention_store.hpp"
#include "storage/open_store.hpp"
#include "workflows/bench.hpp"

namespace stepwise::bench {

namespace {

using steady_clock = std::chrono::steady_clock;

// SQLite: the database file and its write-ahead log apart (a checkpoint
// empties the log, which keeps its size for reuse); none for PostgreSQL.
std::pair<boost::json::value, boost::json::value> sqlite_files(const std::string& uri) {
  constexpr std::string_view scheme = "sqlite:";
  if (uri.rfind(scheme, 0) != 0)
    return {nullptr, nullptr};
  auto path = uri.substr(scheme.size());
  std::error_code ec;
  auto db = std::filesystem::file_size(path, ec);
  auto wal = std::filesystem::file_size(path + "-wal", ec);
  return {db, ec ? 0 : wal};
}

// The buckets as {"le": count}, and the mean.
template <size_t N>
boost::json::object histogram_json(const histogram<N>& h) {
  boost::json::object out;
  for (size_t i = 0; i <= N; ++i)
    out[i < N ? std::to_string(h.bounds[i]) : "inf"] = h.buckets[i].load();
  auto n = h.count.load();
  out["mean"] =
    n > 0 ? static_cast<double>(h.sum_micro.load()) / 1e6 / static_cast<double>(n) : 0.0;
  return out;
}

double seconds_since(steady_clock::time_point t0) {
  return std::chrono::duration<double>(steady_clock::now() - t0).count();
}

} // namespace

int run_steady(const cli_options& o) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  engine_config ec;
  ec.store_uri = o.store.empty() ? fresh_sqlite_uri("steady", 1) : o.store;
  ec.step_workers = o.pool;
  ec.retention = o.retention;
  ec.retention_batch = o.retention_batch;
  auto st = open_store(ec.store_uri);
  if (!st) {
    std::cerr << "stepwise-bench: " << message_of(st.error()) << '\n';
    return 1;
  }
  auto* ret = (*st)->retention();
  if (ret == nullptr) {
    std::cerr << "stepwise-bench: this store has no retention\n";
    return 1;
  }
  auto eng = engine::launch(sys, ec, workflows::bench_workflows(std::chrono::seconds(1)), *st);
  if (!eng) {
    std::cerr << "stepwise-bench: " << message_of(eng.error()) << '\n';
    return 1;
  }
  auto wf = workflows::bench_workflow_of("steps", false);
  auto& m = eng->stats();
  auto t0 = steady_clock::now();
  size_t started = 0;
  size_t refused = 0;
  double next_sample = 0;
  boost::json::array sizes;
  auto sample = [&](double t) {
    auto bytes = ret->size_bytes();
    auto removed = m.retention_operations_removed.load();
    boost::json::object line{{"workload", "steady"},
                             {"t_s", t},
                             {"store_bytes", bytes ? *bytes : -1},
                             {"started", started},
                             {"removed", removed},
                             {"kept", started - std::min<size_t>(started, removed)},
                             {"rss_mib", rss_kib() / 1024}};
    auto [db, wal] = sqlite_files(ec.store_uri);
    line["db_bytes"] = db;
    line["wal_bytes"] = wal;
    sizes.push_back(bytes ? *bytes : -1);
    std::cout << boost::json::serialize(line) << std::endl;
  };
  for (;;) {
    auto t = seconds_since(t0);
    if (t >= next_sample) {
      sample(t);
      next_sample += o.sample_s;
    }
    if (t >= o.duration_s)
      break;
    // Paced to the rate, a 10 ms slice at a time.
    auto due = static_cast<size_t>(t * o.rate);
    for (; started < due; ++started)
      if (!eng->start({wf, std::nullopt, {}, {}, std::nullopt}))
        ++refused;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Growth once the first retention period (and a pass) has gone by.
  auto warm =
    static_cast<size_t>(std::chrono::duration<double>(o.retention).count() * 2 / o.sample_s + 1);
  int64_t at_warm = warm < sizes.size() ? sizes[warm].as_int64() : -1;
  int64_t max_after = 0;
  for (size_t i = warm; i < sizes.size(); ++i)
    max_after = std::max(max_after, sizes[i].as_int64());
  boost::json::object done{
    {"workload", "steady"},
    {"store", eng->store_backend()},
    {"rate", o.rate},
    {"duration_s", o.duration_s},
    {"retention_s", std::chrono::duration<double>(o.retention).count()},
    {"started", started},
    {"refused", refused},
    {"removed_operations", m.retention_operations_removed.load()},
    {"removed_events", m.retention_events_removed.load()},
    {"retention_errors", m.retention_errors.load()},
    {"batch_seconds", histogram_json(m.retention_batch_seconds)},
    {"store_bytes_after_warmup", at_warm},
    {"store_bytes_max_after_warmup", max_after},
    {"store_bytes_end", sizes.back()},
    {"bytes_per_kept_operation",
     started > m.retention_operations_removed.load()
       ? static_cast<double>(sizes.back().as_int64())
           / static_cast<double>(started - m.retention_operations_removed.load())
       : 0.0}};
  eng->shutdown();
  std::cout << boost::json::serialize(done) << std::endl;
  remove_scratch(ec.store_uri);
  return 0;
}

} // namespace stepwise::bench
