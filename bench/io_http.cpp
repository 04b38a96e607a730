// The `io` workload over HTTP: a `stepwise serve` with its default settings
// on an external driver process, operations submitted through its API.
#include "bench/io_workload.hpp"

#include <cstdio>
#include <iostream>

#include <httplib.h>

#include "bench/child_process.hpp"
#include "bench/http_driver.hpp"
#include "bench/proc_sampler.hpp"
#include "bench/proc_stats.hpp"
#include "bench/scratch_store.hpp"
#include "engine/config.hpp"
#include "infra/ignition_driver.hpp"
#include "infra/monitor.hpp"

namespace stepwise::bench {

namespace {

/// The driver process's counters (`GET /stats`); null when it cannot be
/// read.
boost::json::value driver_stats(const std::string& url) {
  httplib::Client c{url};
  auto r = c.Get("/stats");
  if (!r || r->status != 200)
    return nullptr;
  return boost::json::parse(r->body);
}

uint64_t count(const boost::json::value& stats, const char* key) {
  return stats.is_object() ? stats.at(key).to_number<uint64_t>() : 0;
}

std::string log_path(const char* what) {
  return "/tmp/stepwise-bench-" + std::to_string(::getpid()) + "-" + what + ".log";
}

/// The server the run goes to: started here, or the one `o.url` names.
struct server {
  std::string url;
  int pid = 0;
  child_process proc;
  /// Its scratch store, removed after the run (empty: not ours).
  std::string store;
};

std::optional<server> start_server(const io_options& o, const std::string& driver_url, int run) {
  if (!o.url.empty())
    return server{o.url, o.server_pid, {}, {}};
  auto port = free_port();
  auto url = "http://127.0.0.1:" + std::to_string(port);
  std::string err;
  auto store = fresh_sqlite_uri("io-serve", run);
  std::vector<std::string> args{o.server_bin, "serve",    "--driver",
                                driver_url,   "--listen", "127.0.0.1:" + std::to_string(port),
                                "--store",    store};
  if (o.driver_connections > 0) {
    args.emplace_back("--driver-connections");
    args.emplace_back(std::to_string(o.driver_connections));
  }
  auto p = start_child(args, log_path("serve"), err);
  if (!p) {
    std::cerr << "stepwise-bench: " << err << '\n';
    return std::nullopt;
  }
  if (!wait_ready(url, "/readyz", 30, &*p)) {
    std::cerr << "stepwise-bench: the server did not get ready; see " << p->log << '\n';
    stop_child(*p);
    remove_scratch(store);
    return std::nullopt;
  }
  return server{url, p->pid, *p, store};
}

/// Where the driver process is: its URL, and its pid when started here
/// (0: not sampled).
struct driver_at {
  std::string url;
  int pid = 0;
};

/// One run; prints its line. Clears `all_done` when an operation did not
/// succeed.
bool run_once(const io_options& o, const driver_at& drv, int run, bool& all_done) {
  auto& driver_url = drv.url;
  auto srv = start_server(o, driver_url, run);
  if (!srv)
    return false;
  auto load0 = load_average();
  auto before = driver_stats(driver_url);
  auto cpu0 = srv->pid > 0 ? tree_cpu_seconds(srv->pid) : 0.0;
  auto driver_cpu0 = drv.pid > 0 ? tree_cpu_seconds(drv.pid) : 0.0;
  std::optional<proc_sampler> threads;
  std::map<std::string, double> cpu_before;
  if (srv->pid > 0) {
    threads.emplace(srv->pid, std::chrono::milliseconds(50));
    cpu_before = thread_cpu_seconds(srv->pid);
  }
  auto res =
    run_http({srv->url, o.token}, "provision_runtime", o.n, o.concurrency, o.limit_s, io_input);
  all_done = all_done && res.completed == o.n;
  if (threads)
    threads->stop();
  auto after = driver_stats(driver_url);
  auto line = io_line(o, run, res, load0);
  auto polls = count(after, "queries") - count(before, "queries");
  line["store"] = http_store_backend({srv->url, o.token});
  line["driver_calls"] = count(after, "calls") - count(before, "calls");
  line["driver_errors"] = count(after, "errors") - count(before, "errors");
  line["driver_peak_in_flight"] = count(after, "peak_in_flight");
  line["polls_per_s"] = static_cast<double>(polls) / res.wall_s;
  auto driver_cpu = drv.pid > 0 ? tree_cpu_seconds(drv.pid) - driver_cpu0 : 0.0;
  if (srv->pid > 0) {
    line["cpu_s"] = {{"engine", tree_cpu_seconds(srv->pid) - cpu0}, {"driver", driver_cpu}};
    line["peak_rss_mib"] = {{"engine", status_of(srv->pid, "VmHWM") / 1024}};
    line["peak_threads"] = {{"engine", threads->peak_threads()}};
    line["thread_cpu_s"] = thread_cpu_delta(cpu_before, thread_cpu_seconds(srv->pid));
  } else {
    line["cpu_s"] = {{"engine", res.cpu_s}, {"driver", driver_cpu}};
    line["peak_rss_mib"] = {{"engine", res.rss_at_peak_kib / 1024}};
    line["peak_threads"] = {{"engine", nullptr}};
  }
  line["settings"] = {{"call_ms", o.call_ms},
                      {"driver", "http"},
                      {"server", o.url.empty() ? o.server_bin : o.url},
                      {"concurrency", o.concurrency}};
  // A server of this build started here runs on the defaults of this
  // build's headers; another binary's or a running server's are unknown.
  if (o.url.empty() && o.server_bin_is_ours) {
    auto& s = line["settings"].as_object();
    s["driver_connections"] = o.driver_connections > 0
                                ? o.driver_connections
                                : infra::ignition_driver_config{}.max_connections;
    s["monitor_rate"] = infra::monitor_options{}.max_polls_per_second;
    s["step_workers"] = engine_config{}.step_workers;
  }
  std::cout << boost::json::serialize(line) << std::endl;
  if (srv->proc.pid > 0 && !stop_child(srv->proc))
    std::cerr << "stepwise-bench: the server did not stop in time; killed\n";
  remove_scratch(srv->store);
  return true;
}

} // namespace

int run_io_http(const io_options& opts) {
  auto o = opts;
  if (o.server_bin.empty()) {
    auto self = self_exe();
    o.server_bin = self.substr(0, self.rfind('/') + 1) + "stepwise";
    o.server_bin_is_ours = true;
  }
  std::optional<child_process> drv;
  auto driver_url = o.driver_url;
  if (driver_url.empty()) {
    auto listen = "127.0.0.1:" + std::to_string(free_port());
    std::string err;
    drv = start_child(
      {self_exe(), "--serve-driver", "--listen", listen, "--call-ms", std::to_string(o.call_ms)},
      log_path("driver"), err);
    if (!drv) {
      std::cerr << "stepwise-bench: " << err << '\n';
      return 1;
    }
    driver_url = "http://" + listen;
    if (!wait_ready(driver_url, "/stats", 30, &*drv)) {
      std::cerr << "stepwise-bench: the driver process did not start; see " << drv->log << '\n';
      stop_child(*drv);
      return 1;
    }
  }
  int rc = 0;
  bool all_done = true;
  for (int run = 1; run <= o.runs && rc == 0; ++run)
    if (!run_once(o, {driver_url, drv ? drv->pid : 0}, run, all_done))
      rc = 1;
  if (drv)
    stop_child(*drv);
  if (rc == 0 && all_done) // kept when something failed: the messages point to them
    for (auto what : {"driver", "serve"})
      std::remove(log_path(what).c_str());
  return rc != 0 ? rc : all_done ? 0 : 3;
}

} // namespace stepwise::bench
