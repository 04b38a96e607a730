#include "bench/tasks_workload.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

#include <boost/json.hpp>
#include <httplib.h>

#include "bench/child_process.hpp"
#include "bench/http_driver.hpp"
#include "bench/scratch_store.hpp"
#include "bench/stats.hpp"
#include "bench/task_workers.hpp"
#include "engine/time.hpp"
#include "git_sha.hpp"

namespace stepwise::bench {

namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

bool define(httplib::Client& c, const std::string& name, const std::string& queue, int steps) {
  json::array list;
  for (int i = 1; i <= steps; ++i)
    list.push_back({{"name", "t" + std::to_string(i)}, {"kind", "task"}, {"queue", queue}});
  auto r = c.Put("/api/v1/workflows/" + name, json::serialize(json::object{{"steps", list}}),
                 "application/json");
  return r && (r->status == 200 || r->status == 201);
}

json::object quantiles(const std::vector<double>& v) {
  return {{"p50", quantile(v, 0.5)},
          {"p99", quantile(v, 0.99)},
          {"max", quantile(v, 1.0)},
          {"count", v.size()}};
}

/// From ready to taken, with idle pollers: `n` one-task operations started
/// one after another, each taken by one of four waiting pollers. Returns
/// each task's wait in ms (the poller's receipt on its clock minus the
/// server's `ready_at`, the same clock on one machine; `ready_at` is in
/// whole ms, so each figure may be up to 1 ms high).
std::vector<double> ready_to_taken(const http_target& t, size_t n) {
  // Written on the workers' one thread, read once the set has joined it.
  std::vector<double> waits;
  {
    task_workers pollers{
      t, "bench1", 4, 1, false, [&](const json::object& task) {
        auto now = std::chrono::system_clock::now();
        auto* at = task.if_contains("ready_at");
        auto ready = at && at->is_string() ? parse_time(at->get_string()) : std::nullopt;
        if (ready)
          waits.push_back(std::chrono::duration<double, std::milli>(now - *ready).count());
      }};
    std::this_thread::sleep_for(200ms); // the pollers wait
    auto c = keep_alive_client(t);
    for (size_t i = 0; i < n; ++i) {
      (void)c->Post("/api/v1/operations", R"({"workflow":"bench_task1","input":{}})",
                    "application/json");
      std::this_thread::sleep_for(2ms); // one at a time: the pollers idle between
    }
    auto until = std::chrono::steady_clock::now() + 30s;
    while (pollers.completed < n && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
  }
  return waits;
}

} // namespace

int run_tasks(const cli_options& o) {
  auto fail = [](const std::string& why) {
    std::cerr << "stepwise-bench: " << why << '\n';
    return 1;
  };
  http_target target{o.url, o.token};
  int pid = o.io.server_pid;
  std::optional<child_process> server;
  std::string store;
  if (!o.url_given) {
    auto bin = o.io.server_bin;
    if (bin.empty()) {
      auto self = self_exe();
      bin = self.substr(0, self.rfind('/') + 1) + "stepwise";
    }
    auto port = std::to_string(free_port());
    target.url = "http://127.0.0.1:" + port;
    store = fresh_sqlite_uri("tasks-serve", 1);
    std::string err;
    server = start_child({bin, "serve", "--listen", "127.0.0.1:" + port, "--store", store,
                          "--max-streams", std::to_string(o.pollers + 1024)},
                         "/tmp/stepwise-bench-" + std::to_string(::getpid()) + "-serve.log", err);
    if (!server)
      return fail(err);
    if (!wait_ready(target.url, "/readyz", 30, &*server))
      return fail("the server did not get ready; see " + server->log);
    pid = server->pid;
  }
  auto c = keep_alive_client(target);
  if (!define(*c, "bench_tasks", "bench", 5) || !define(*c, "bench_task1", "bench1", 1))
    return fail("the task workflows could not be defined at " + target.url);
  // W1 twice: each task answered by a request of its own, then each
  // poll's tasks answered in one.
  run_result w1, w1_batched;
  uint64_t worker_errors = 0;
  for (bool batch : {false, true}) {
    task_workers workers{target, "bench", o.task_workers, 32, batch};
    (batch ? w1_batched : w1) = run_http(target, "bench_tasks", o.n, o.concurrency, o.limit_s);
    worker_errors += workers.errors;
  }
  auto waits = ready_to_taken(target, 1000);
  auto pollers = hold_pollers(target.url, target.token, pid, o.pollers);
  if (server)
    stop_child(*server);
  if (!store.empty())
    remove_scratch(store);
  auto steps = 5.0 * static_cast<double>(w1.completed);
  json::object line{
    {"engine", "stepwise"},
    {"workload", "tasks"},
    {"via", "http"},
    {"n", o.n},
    {"steps_per_op", 5},
    {"completed", w1.completed},
    {"errors", w1.errors + worker_errors},
    {"wall_s", w1.wall_s},
    {"steps_per_s", w1.wall_s > 0 ? steps / w1.wall_s : 0.0},
    {"ops_per_s", w1.wall_s > 0 ? static_cast<double>(w1.completed) / w1.wall_s : 0.0},
    {"latency_ms", quantiles(w1.latency_ms)},
    {"batched",
     {{"completed", w1_batched.completed},
      {"wall_s", w1_batched.wall_s},
      {"steps_per_s", w1_batched.wall_s > 0
                        ? 5.0 * static_cast<double>(w1_batched.completed) / w1_batched.wall_s
                        : 0.0},
      {"latency_ms", quantiles(w1_batched.latency_ms)},
      {"cpu_s_server", w1_batched.cpu_s}}},
    {"ready_to_taken_ms", quantiles(waits)},
    {"pollers", pollers},
    {"cpu_s", {{"server", w1.cpu_s}}},
    {"version", STEPWISE_GIT_SHA},
    {"settings",
     {{"store", o.url_given ? http_store_backend(target) : std::string{"sqlite"}},
      {"workers", o.task_workers},
      {"poll_max", 32},
      {"submitters", o.concurrency},
      {"nproc", std::thread::hardware_concurrency()}}},
  };
  std::cout << json::serialize(line) << std::endl;
  bool ok =
    w1.completed == o.n && w1_batched.completed == o.n && waits.size() == 1000
    && pollers.at("waiting_on_server").to_number<double>() >= static_cast<double>(o.pollers);
  return ok ? 0 : 3;
}

} // namespace stepwise::bench
