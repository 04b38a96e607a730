#include "bench/driver_process.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <pthread.h>
#include <thread>

#include <sys/socket.h>

#include <boost/json.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <httplib.h>

#include "actors/real_clock.hpp"
#include "infra/ignition_json.hpp"
#include "infra/sim_driver.hpp"

namespace stepwise::bench {

namespace {

namespace json = boost::json;
using steady = std::chrono::steady_clock;

/// What `GET /stats` reports.
struct counters {
  std::atomic<uint64_t> creates{0};
  std::atomic<uint64_t> deletes{0};
  std::atomic<uint64_t> queries{0};
  std::atomic<uint64_t> finds{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<int64_t> in_flight{0};
  std::atomic<int64_t> peak_in_flight{0};
};

void write(httplib::Response& res, int status, const json::object& body) {
  res.status = status;
  res.set_content(json::serialize(body), "application/json");
}

// Ignition's statuses: a refusal for now is 503, a broken driver 500, the
// rest (unknown ids, bad template, unreachable location) 400.
template <class T>
void answer(httplib::Response& res, infra::result<T>& r, int ok, counters& n) {
  if (auto e = std::get_if<infra::error>(&r)) {
    ++n.errors;
    auto status = e->kind == infra::error_kind::temporary              ? 503
                  : e->kind == infra::error_kind::infrastructure_error ? 500
                                                                       : 400;
    return write(res, status, infra::encode_error(e->message, status));
  }
  write(res, ok, infra::encode(std::get<T>(r)));
}

// Decodes the body into `out`; answers 400 and returns false when it
// cannot.
template <class T, class Decoder>
bool decode(const httplib::Request& req, httplib::Response& res, Decoder dec, T& out, counters& n) {
  boost::system::error_code ec;
  auto v = json::parse(req.body, ec);
  auto err = ec ? std::optional<std::string>("the body is not JSON") : dec(v, out);
  if (!err)
    return true;
  ++n.errors;
  write(res, 400, infra::encode_error(*err, 400));
  return false;
}

// The simulated cloud answers at once (it has no delayed calls): the
// latency is the HTTP thread's wait, like a driver blocked on its cloud.
template <class T, class Start>
infra::result<T> call(Start start) {
  return infra::wait_for<T>(std::move(start), std::chrono::seconds(1));
}

void mount(httplib::Server& svr, infra::sim_driver& drv, counters& n,
           std::chrono::milliseconds latency) {
  // Counts the call, runs it, and answers `latency` after it arrived.
  auto timed = [&n, latency](std::atomic<uint64_t>& kind, auto body) {
    return [&n, &kind, latency, body](const httplib::Request& req, httplib::Response& res) {
      auto due = steady::now() + latency;
      auto now = ++n.in_flight;
      auto peak = n.peak_in_flight.load();
      while (now > peak && !n.peak_in_flight.compare_exchange_weak(peak, now)) {
      }
      body(req, res);
      std::this_thread::sleep_until(due);
      --n.in_flight;
      ++kind;
    };
  };
  const std::string base = "/api/infrastructure/";
  svr.Post(base + "create", timed(n.creates, [&drv, &n](auto& req, auto& res) {
             infra::create_request r;
             if (!decode(req, res, infra::decode_create_request, r, n))
               return;
             auto got =
               call<infra::accepted>([&](auto done) { drv.create(r, std::move(done), {}); });
             answer(res, got, 202, n);
           }));
  svr.Post(base + "delete", timed(n.deletes, [&drv, &n](auto& req, auto& res) {
             infra::delete_request r;
             if (!decode(req, res, infra::decode_delete_request, r, n))
               return;
             auto got = call<infra::accepted>([&](auto done) {
               drv.remove(r.infrastructure_id, r.location, std::move(done), {});
             });
             answer(res, got, 202, n);
           }));
  svr.Post(base + "query", timed(n.queries, [&drv, &n](auto& req, auto& res) {
             infra::task_query r;
             if (!decode(req, res, infra::decode_task_query, r, n))
               return;
             auto got = call<infra::task>([&](auto done) {
               drv.get_task(r.infrastructure_id, r.request_id, r.location, std::move(done));
             });
             answer(res, got, 200, n);
           }));
  svr.Post(base + "find", timed(n.finds, [&drv, &n](auto& req, auto& res) {
             infra::find_request r;
             if (!decode(req, res, infra::decode_find_request, r, n))
               return;
             auto got = call<std::optional<infra::found>>([&](auto done) {
               drv.find(r.template_text, r.template_type, r.instance_name, r.location,
                        std::move(done));
             });
             answer(res, got, 200, n);
           }));
  svr.Get("/stats", [&n, latency](const httplib::Request&, httplib::Response& res) {
    auto calls = n.creates + n.deletes + n.queries + n.finds;
    write(res, 200,
          {{"calls", calls},
           {"creates", n.creates.load()},
           {"deletes", n.deletes.load()},
           {"queries", n.queries.load()},
           {"finds", n.finds.load()},
           {"errors", n.errors.load()},
           {"in_flight", n.in_flight.load()},
           {"peak_in_flight", n.peak_in_flight.load()},
           {"call_ms", latency.count()}});
  });
}

} // namespace

int serve_driver(const std::string& listen, int64_t call_ms, size_t threads) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) {
    std::fprintf(stderr, "stepwise-bench: --listen must be HOST:PORT\n");
    return 2;
  }
  auto host = listen.substr(0, colon);
  auto port = std::stoi(listen.substr(colon + 1));
  // Only the sigwait below takes the stop signals; threads inherit the mask.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  infra::sim_driver drv{infra::sim_config{}, std::make_shared<real_clock>(sys)};
  counters n;
  httplib::Server svr;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(1'000'000);
  int listen_fd = -1;
  svr.set_socket_options([&listen_fd](socket_t fd) {
    httplib::default_socket_options(fd);
    listen_fd = fd;
  });
  mount(svr, drv, n, std::chrono::milliseconds(call_ms));
  if (!svr.bind_to_port(host.c_str(), port)) {
    std::fprintf(stderr, "stepwise-bench: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  // httplib listens with a backlog of 5: a burst of connects would see
  // dropped SYNs and one-second retransmits. Linux takes a second listen()
  // on the bound socket as a new backlog.
  ::listen(listen_fd, 4096);
  std::thread server{[&svr] { svr.listen_after_bind(); }};
  std::fprintf(stderr, "stepwise-bench: driver on http://%s (calls answer after %lld ms)\n",
               listen.c_str(), static_cast<long long>(call_ms));
  int sig = 0;
  sigwait(&stop, &sig);
  svr.stop();
  server.join();
  return 0;
}

} // namespace stepwise::bench
