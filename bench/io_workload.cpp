#include "bench/io_workload.hpp"

#include <chrono>
#include <cmath>

#include "bench/proc_stats.hpp"
#include "bench/stats.hpp"
#include "engine/time.hpp"

#include "git_sha.hpp"

namespace stepwise::bench {

boost::json::object io_input(size_t i) {
  return {{"i", i},
          {"name", "rt-" + std::to_string(i)},
          {"deployment_location", {{"name", "dc1"}}},
          {"template", "outputs.url: http://x\nlatency_ms: 0"}};
}

boost::json::object io_line(const io_options& o, int run, const run_result& res,
                            double load_before) {
  auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
  return {{"engine", "stepwise"},
          {"workload", "io"},
          {"n", o.n},
          {"k", 4},
          {"run", run},
          {"via", o.via},
          {"completed", res.completed},
          {"errors", res.errors},
          {"wall_s", res.wall_s},
          {"ops_per_s", static_cast<double>(res.completed) / res.wall_s},
          {"latency_ms",
           {{"p50", quantile(res.latency_ms, 0.5)},
            {"p99", quantile(res.latency_ms, 0.99)},
            {"max", quantile(res.latency_ms, 1.0)}}},
          {"load_avg", {load_before, load_average()}},
          {"version", STEPWISE_GIT_SHA},
          {"ts", format_time(now)}};
}

boost::json::object thread_cpu_delta(const std::map<std::string, double>& before,
                                     const std::map<std::string, double>& after) {
  boost::json::object out;
  for (auto& [name, secs] : after) {
    auto i = before.find(name);
    auto used = secs - (i == before.end() ? 0.0 : i->second);
    if (used >= 0.01)
      out[name] = std::round(used * 100) / 100;
  }
  return out;
}

} // namespace stepwise::bench
