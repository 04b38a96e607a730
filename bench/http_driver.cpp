#include "bench/http_driver.hpp"

#include "bench/http_submitter.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include <boost/json.hpp>
#include <httplib.h>

namespace stepwise::bench {

namespace {

using steady = std::chrono::steady_clock;

// Returns the sample `name` (no labels) of the server's /metrics, or -1.
double metric(httplib::Client& c, const std::string& name) {
  auto r = c.Get("/metrics");
  if (!r || r->status != 200)
    return -1;
  auto pos = r->body.find("\n" + name + " ");
  if (pos == std::string::npos)
    return -1;
  return std::stod(r->body.substr(pos + name.size() + 2));
}

// Returns whether the log has an event beyond `seq`.
bool has_beyond(httplib::Client& c, int64_t seq) {
  auto r = c.Get("/api/v1/events?limit=1&after=" + std::to_string(seq));
  if (!r || r->status != 200)
    return false;
  return !boost::json::parse(r->body).at("items").as_array().empty();
}

// The seq of the newest event, so that the stream starts after the log: an
// exponential then binary search ("an event beyond x" holds for every x
// below the end and none above), a few
// dozen cheap requests however long the log of earlier runs is.
int64_t log_end(httplib::Client& c) {
  int64_t lo = 0; // has_beyond(lo) holds, or lo == 0
  int64_t hi = 1;
  while (has_beyond(c, hi)) {
    lo = hi;
    hi *= 2;
  }
  if (!has_beyond(c, lo))
    return lo;
  // has_beyond(lo) && !has_beyond(hi): the end is in (lo, hi].
  while (hi - lo > 1) {
    auto mid = lo + (hi - lo) / 2;
    (has_beyond(c, mid) ? lo : hi) = mid;
  }
  return hi;
}

// What the stream reader and the submitters share.
struct shared_state {
  std::mutex mtx;
  std::condition_variable cv;
  std::unordered_map<std::string, std::pair<steady::time_point, bool>> finished;
  std::atomic<bool> stop{false};
  size_t terminal = 0;
};

// The stream carries only these: the bench waits for operations to end.
constexpr const char* terminal_types = "operation_succeeded,operation_failed,operation_canceled";

bool terminal_type(std::string_view type) {
  return type == "operation_succeeded" || type == "operation_failed"
         || type == "operation_canceled";
}

// Reads the stream from `after` until told to stop. A frame is "id: SEQ",
// "event: TYPE", "data: JSON" and a blank line: the type and the seq come
// from their lines, and only a terminal event's JSON is parsed (for its
// operation id), so that the bench's own CPU, on the server's cores, goes
// to little more than reading.
void read_stream(httplib::Client* c, int64_t after, shared_state& st) {
  std::string buf;
  std::string type;
  std::string data;
  while (!st.stop) {
    httplib::Headers hs{{"Last-Event-ID", std::to_string(after)}};
    c->Get("/api/v1/events/stream?type=" + std::string(terminal_types), hs,
           [&](const char* d, size_t n) {
             buf.append(d, n);
             size_t start = 0;
             size_t pos;
             while ((pos = buf.find('\n', start)) != std::string::npos) {
               std::string_view line{buf.data() + start, pos - start};
               start = pos + 1;
               if (line.rfind("id: ", 0) == 0) {
                 after = std::strtoll(std::string{line.substr(4)}.c_str(), nullptr, 10);
               } else if (line.rfind("event: ", 0) == 0) {
                 type = line.substr(7);
               } else if (line.rfind("data: ", 0) == 0) {
                 if (terminal_type(type))
                   data = line.substr(6);
               } else if (line.empty() && !type.empty()) {
                 if (terminal_type(type) && !data.empty()) {
                   auto e = boost::json::parse(data);
                   std::lock_guard<std::mutex> guard{st.mtx};
                   st.finished[std::string(e.at("operation_id").as_string())] = {
                     steady::now(), type != "operation_succeeded"};
                   ++st.terminal;
                   st.cv.notify_all();
                 }
                 type.clear();
                 data.clear();
               }
             }
             buf.erase(0, start);
             return !st.stop.load();
           });
  }
}

} // namespace

bool plain_http(const std::string& url, std::string& host, unsigned short& port) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0)
    return false;
  auto rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/')
    rest.pop_back();
  auto colon = rest.rfind(':');
  if (colon == std::string::npos)
    return false;
  host = rest.substr(0, colon);
  auto p = std::strtoul(rest.c_str() + colon + 1, nullptr, 10);
  if (host.empty() || p == 0 || p > 65535)
    return false;
  port = static_cast<unsigned short>(p);
  return true;
}

run_result run_http(const http_target& target, const std::string& workflow, size_t n,
                    size_t concurrency, double limit_s, const input_fn& input) {
  run_result res;
  std::string host;
  unsigned short port = 0;
  if (!plain_http(target.url, host, port)) {
    std::fprintf(stderr, "stepwise-bench: --via http needs --url http://HOST:PORT, not %s\n",
                 target.url.c_str());
    res.errors = n;
    return res;
  }
  auto probe = keep_alive_client(target);
  auto start_seq = log_end(*probe);
  auto cpu0 = metric(*probe, "process_cpu_seconds_total");
  shared_state st;
  auto stream_client = keep_alive_client(target);
  std::thread reader([&] { read_stream(stream_client.get(), start_seq, st); });
  std::vector<steady::time_point> submitted(n);
  std::vector<std::string> ids(n);
  size_t submit_errors = 0;
  auto t0 = steady::now();
  auto body = [&](size_t i) {
    auto in = input ? input(i) : boost::json::object{{"i", i}};
    return boost::json::serialize(
      boost::json::object{{"workflow", workflow}, {"input", std::move(in)}});
  };
  auto before = [&](size_t i) { submitted[i] = steady::now(); };
  auto done = [&](size_t i, const submit_answer& a) {
    // The id from Location: the operation's JSON is not parsed.
    auto slash = a.location.rfind('/');
    if (a.status == 201 && slash != std::string::npos) {
      ids[i] = a.location.substr(slash + 1);
      return;
    }
    if (submit_errors++ < 3)
      std::fprintf(stderr, "stepwise-bench: submit failed: %s\n",
                   (a.status == 0 ? a.body : std::to_string(a.status) + " " + a.body).c_str());
  };
  submit_all(host, port, target.token, "/api/v1/operations", n, concurrency, body, before, done);
  {
    std::unique_lock<std::mutex> guard{st.mtx};
    auto accepted = n - submit_errors;
    st.cv.wait_until(
      guard,
      t0 + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(limit_s)),
      [&] { return st.terminal >= accepted; });
  }
  res.wall_s = std::chrono::duration<double>(steady::now() - t0).count();
  st.stop = true;
  // Do not wait for the next heartbeat: close the stream now.
  stream_client->stop();
  reader.join();
  res.errors = submit_errors;
  for (size_t i = 0; i < n; ++i) {
    auto f = st.finished.find(ids[i]);
    if (ids[i].empty() || f == st.finished.end()) {
      if (!ids[i].empty())
        std::fprintf(stderr, "stepwise-bench: no terminal event seen for %s\n", ids[i].c_str());
      continue;
    }
    res.latency_ms.push_back(
      std::chrono::duration<double, std::milli>(f->second.first - submitted[i]).count());
    res.ids.push_back(ids[i]);
    if (f->second.second)
      ++res.errors;
    else
      ++res.completed;
  }
  res.cpu_s = metric(*probe, "process_cpu_seconds_total") - cpu0;
  res.rss_at_peak_kib =
    static_cast<int64_t>(metric(*probe, "stepwise_process_peak_resident_memory_bytes") / 1024);
  return res;
}

std::unique_ptr<httplib::Client> keep_alive_client(const http_target& target, int read_timeout_s) {
  auto c = std::make_unique<httplib::Client>(target.url);
  if (!target.token.empty())
    c->set_bearer_token_auth(target.token.c_str());
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  c->set_read_timeout(read_timeout_s, 0);
  c->set_write_timeout(30, 0);
  return c;
}

double server_metric(const http_target& target, const std::string& name) {
  auto c = keep_alive_client(target);
  return metric(*c, name);
}

std::string http_store_backend(const http_target& target) {
  auto c = keep_alive_client(target);
  auto r = c->Get("/readyz");
  if (!r || r->status != 200)
    return "unknown";
  return std::string(boost::json::parse(r->body).at("store").as_string());
}

boost::json::value http_operation_data(const http_target& target, const std::string& id) {
  thread_local std::unique_ptr<httplib::Client> c;
  if (!c)
    c = keep_alive_client(target);
  auto r = c->Get("/api/v1/operations/" + id);
  if (!r || r->status != 200)
    return nullptr;
  return boost::json::parse(r->body).at("data");
}

} // namespace stepwise::bench
