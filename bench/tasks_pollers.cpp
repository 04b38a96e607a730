// The `tasks` workload's idle long polls: many held by one thread (epoll),
// and what the server's threads and memory are before and while they wait.
#include "bench/tasks_workload.hpp"

#include <chrono>
#include <thread>

#include "bench/http_driver.hpp"
#include "bench/proc_stats.hpp"
#include "bench/stream_clients.hpp"
#include "net/fd_limit.hpp"

namespace stepwise::bench {

boost::json::object hold_pollers(const std::string& url, const std::string& token, int pid,
                                 size_t n) {
  std::string host;
  unsigned short port = 0;
  if (!plain_http(url, host, port))
    return {{"error", "the idle polls need http://HOST:PORT, not " + url}};
  if (host == "localhost")
    host = "127.0.0.1";
  if (net::raise_fd_limit() < n + 64)
    return {{"error", "too few open files (ulimit -Hn) for " + std::to_string(n) + " polls"}};
  http_target api{url, token};
  // Without the server's process (a --url without --server-pid) its
  // threads and memory are not known: not this process's.
  auto of = [pid](const char* field) { return pid > 0 ? status_of(pid, field) : 0; };
  auto threads_before = of("Threads");
  auto rss_before = of("VmRSS");
  std::string body = R"({"queue":"idle","worker":"idle","max":1,"wait":"60s"})";
  auto request = "POST /api/v1/tasks/poll HTTP/1.1\r\nHost: " + host
                 + "\r\nContent-Type: application/json\r\n"
                 + (token.empty() ? "" : "Authorization: Bearer " + token + "\r\n")
                 + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  auto opened_at = std::chrono::steady_clock::now();
  stream_clients polls{host, port};
  auto opened = polls.open_streams(n, request);
  polls.start();
  // Waiting: counted by the server's broker, and nothing answered yet.
  double waiting = 0;
  auto until = opened_at + std::chrono::seconds(50);
  while ((waiting = server_metric(api, "stepwise_task_pollers")) < static_cast<double>(n)
         && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto held_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_at).count();
  auto threads_with = of("Threads");
  auto rss_with = of("VmRSS");
  auto c = polls.counts();
  return {{"asked", n},
          {"connected", opened},
          {"waiting_on_server", waiting},
          {"refused", c.refused},
          {"closed", c.closed},
          {"open_s", held_s},
          {"server_threads", {{"before", threads_before}, {"while_waiting", threads_with}}},
          {"server_rss_mib",
           {{"before", rss_before / 1024.0},
            {"while_waiting", rss_with / 1024.0},
            {"delta", (rss_with - rss_before) / 1024.0}}},
          {"bytes_per_poll",
           n ? static_cast<double>(rss_with - rss_before) * 1024.0 / static_cast<double>(n) : 0.0}};
}

} // namespace stepwise::bench
