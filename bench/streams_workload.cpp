#include "bench/streams_workload.hpp"

#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include <boost/json.hpp>
#include <httplib.h>

#include "bench/http_driver.hpp"
#include "bench/proc_stats.hpp"
#include "bench/sse_decoder.hpp"
#include "bench/stats.hpp"
#include "bench/stream_clients.hpp"
#include "engine/time.hpp"
#include "git_sha.hpp"
#include "net/fd_limit.hpp"

namespace stepwise::bench {

namespace {

using steady = std::chrono::steady_clock;

double ms_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::unique_ptr<httplib::Client> api_client(const cli_options& o) {
  return keep_alive_client(http_target{o.url, o.token}, 60);
}

// The count and digest of every event after `after`, and how many
// operations ended, read page by page.
struct log_tail {
  size_t count = 0;
  uint64_t digest = sse_decoder::empty_digest;
  int64_t last = 0;
  size_t ended = 0;
};

bool read_log(httplib::Client& c, int64_t after, log_tail& out) {
  out = log_tail{};
  out.last = after;
  for (;;) {
    auto r = c.Get("/api/v1/events?limit=1000&after=" + std::to_string(out.last));
    if (!r || r->status != 200)
      return false;
    auto page = boost::json::parse(r->body);
    auto& items = page.at("items").as_array();
    if (items.empty())
      return true;
    for (auto& e : items) {
      auto seq = e.at("seq").as_int64();
      out.digest = sse_decoder::digest_of(out.digest, seq);
      ++out.count;
      out.last = seq;
      auto type = e.at("type").as_string();
      if (type == "operation_succeeded" || type == "operation_failed")
        ++out.ended;
    }
  }
}

boost::json::object latency(const std::vector<double>& ms) {
  return {{"p50", quantile(ms, 0.5)},
          {"p99", quantile(ms, 0.99)},
          {"max", quantile(ms, 1.0)},
          {"count", ms.size()}};
}

} // namespace

int run_streams(const cli_options& o) {
  auto fail = [](const std::string& why) {
    std::cerr << "stepwise-bench: " << why << '\n';
    return 1;
  };
  // The raw connections need a numeric IPv4 host.
  auto rest = o.url.substr(o.url.find("://") == std::string::npos ? 0 : o.url.find("://") + 3);
  auto colon = rest.rfind(':');
  if (o.url.rfind("http://", 0) != 0 || colon == std::string::npos)
    return fail("--workload streams needs --url http://IPv4:PORT, not " + o.url);
  auto host = rest.substr(0, colon);
  if (host == "localhost")
    host = "127.0.0.1";
  auto port = std::atoi(rest.substr(colon + 1).c_str());
  auto fds = net::raise_fd_limit();
  if (fds < o.streams + o.stalled + 64)
    return fail("at most " + std::to_string(fds) + " open files (ulimit -Hn): too few for "
                + std::to_string(o.streams) + " streams and " + std::to_string(o.stalled)
                + " stalled clients");
  auto api = api_client(o);
  http_target target{o.url, o.token};
  auto latest = api->Get("/api/v1/events/latest");
  if (!latest || latest->status != 200)
    return fail("no server answering /api/v1/events/latest at " + o.url
                + (latest ? " (status " + std::to_string(latest->status) + ")" : ""));
  auto after = boost::json::parse(latest->body).at("seq").as_int64();
  auto auth = o.token.empty() ? std::string() : "Authorization: Bearer " + o.token + "\r\n";
  stream_clients clients{host, port};
  auto t_open = steady::now();
  auto stalled = clients.open_stalled(o.stalled, "POST /api/v1/operations HTTP/1.1\r\nHost: " + host
                                                   + "\r\n" + auth + "Content-");
  auto streams =
    clients.open_streams(o.streams, "GET /api/v1/events/stream?after=" + std::to_string(after)
                                      + " HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "\r\n");
  clients.start();
  auto limit = steady::now() + std::chrono::duration<double>(o.limit_s);
  while (steady::now() < limit) {
    auto c = clients.counts();
    if (c.admitted + c.refused + c.closed >= streams)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto open_s = ms_between(t_open, steady::now()) / 1000;
  auto opened = clients.counts();
  auto cpu0 = server_metric(target, "process_cpu_seconds_total");
  auto own_cpu0 = cpu_seconds();
  // /readyz ten times a second while the operations start.
  std::atomic<bool> probing{true};
  std::vector<double> ready_ms;
  size_t ready_errors = 0;
  std::thread prober([&] {
    auto c = api_client(o);
    while (probing) {
      auto t0 = steady::now();
      auto r = c->Get("/readyz");
      ready_ms.push_back(ms_between(t0, steady::now()));
      if (!r || r->status != 200)
        ++ready_errors;
      std::this_thread::sleep_until(t0 + std::chrono::milliseconds(100));
    }
  });
  std::vector<double> post_ms;
  size_t post_errors = 0;
  auto t_posts = steady::now();
  auto period = std::chrono::duration<double>(1.0 / o.rate);
  for (size_t i = 0; i < o.n; ++i) {
    std::this_thread::sleep_until(
      t_posts + std::chrono::duration_cast<steady::duration>(period * static_cast<double>(i)));
    auto t0 = steady::now();
    auto r = api->Post("/api/v1/operations",
                       R"({"workflow":"bench_one","input":{"i":)" + std::to_string(i) + "}}",
                       "application/json");
    post_ms.push_back(ms_between(t0, steady::now()));
    if (!r || r->status != 201)
      ++post_errors;
  }
  auto posts_s = ms_between(t_posts, steady::now()) / 1000;
  probing = false;
  prober.join();
  // Every operation ends; then every stream should have the whole log.
  log_tail log;
  while (steady::now() < limit && read_log(*api, after, log) && log.ended < o.n - post_errors)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The log may still grow by an event or two after the last end.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  read_log(*api, after, log);
  auto t_deliver = steady::now();
  while (steady::now() < limit && clients.reached(log.last) < opened.admitted)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto deliver_s = ms_between(t_deliver, steady::now()) / 1000;
  auto complete = clients.complete(log.count, log.digest);
  auto end = clients.counts();
  boost::json::object line{
    {"engine", "stepwise"},
    {"workload", "streams"},
    {"via", "http"},
    {"streams", o.streams},
    {"stalled", o.stalled},
    {"n", o.n},
    {"rate", o.rate},
    {"connected", {{"streams", streams}, {"stalled", stalled}}},
    {"admitted", opened.admitted},
    {"refused", opened.refused},
    {"open_s", open_s},
    {"post_ms", latency(post_ms)},
    {"post_errors", post_errors},
    {"posts_s", posts_s},
    {"readyz_ms", latency(ready_ms)},
    {"readyz_errors", ready_errors},
    {"events", log.count},
    {"operations_ended", log.ended},
    {"streams_complete", complete},
    {"streams_closed", end.closed},
    {"deliver_s", deliver_s},
    {"stalled_cut", end.stalled_cut},
    {"stalled_open", end.stalled_open},
    {"cpu_s",
     {{"server", server_metric(target, "process_cpu_seconds_total") - cpu0},
      {"bench", cpu_seconds() - own_cpu0}}},
    {"peak_rss_mib",
     {{"server", server_metric(target, "stepwise_process_peak_resident_memory_bytes") / 1048576},
      {"bench", static_cast<double>(peak_rss_kib()) / 1024}}},
    {"load_avg", load_average()},
    {"settings", {{"url", o.url}, {"workflow", "bench_one"}}},
    {"version", STEPWISE_GIT_SHA},
    {"ts", format_time(std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()))}};
  std::cout << boost::json::serialize(line) << std::endl;
  return complete == opened.admitted && opened.admitted == o.streams ? 0 : 3;
}

} // namespace stepwise::bench
