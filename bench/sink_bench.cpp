#include "bench/sink_bench.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <httplib.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "bench/stats.hpp"
#include "engine/errc.hpp"

namespace stepwise::bench {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

} // namespace

/// The built-in targets, started only when a spec names them.
struct sink_bench::targets {
  httplib::Server receiver;
  std::thread receiver_thread;
  int receiver_port = 0;
  rd_kafka_t* mock_owner = nullptr;
  rd_kafka_mock_cluster_t* mock = nullptr;
  std::chrono::milliseconds down_for{0};
  /// Until when the receiver answers 503 (steady clock, ns; set by start).
  std::atomic<int64_t> down_until{0};
  /// Brings the mock cluster's broker back after `down_for`.
  std::thread mock_up;

  ~targets() {
    if (mock_up.joinable())
      mock_up.join();
    if (receiver_port != 0) {
      receiver.stop();
      receiver_thread.join();
    }
    if (mock != nullptr)
      rd_kafka_mock_cluster_destroy(mock);
    if (mock_owner != nullptr)
      rd_kafka_destroy(mock_owner);
  }

  std::string receiver_url() {
    if (receiver_port == 0) {
      // Acknowledges at once, as a receiver that queues the work would.
      receiver.Post("/hook", [this](const httplib::Request&, httplib::Response& res) {
        auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        res.status = now < down_until.load() ? 503 : 204;
      });
      // Keeps connections open as a production receiver would (httplib's
      // default closes one after 5 requests).
      receiver.set_keep_alive_max_count(1000000);
      receiver_port = receiver.bind_to_any_port("127.0.0.1");
      receiver_thread = std::thread{[this] { receiver.listen_after_bind(); }};
    }
    return "http://127.0.0.1:" + std::to_string(receiver_port) + "/hook";
  }

  std::string mock_brokers() {
    if (mock == nullptr) {
      char err[256];
      auto* conf = rd_kafka_conf_new();
      rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
      mock_owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
      mock = rd_kafka_mock_cluster_new(mock_owner, 1);
      rd_kafka_mock_topic_create(mock, "completions", 4, 1);
    }
    return rd_kafka_mock_cluster_bootstraps(mock);
  }
};

caf::expected<std::unique_ptr<sink_bench>> sink_bench::make(
  const std::vector<std::string>& specs, std::chrono::milliseconds targets_down) {
  std::unique_ptr<sink_bench> out{new sink_bench};
  out->targets_ = std::make_unique<targets>();
  out->targets_->down_for = targets_down;
  for (auto spec : specs) {
    if (spec.find("@receiver") != std::string::npos)
      replace_all(spec, "@receiver", out->targets_->receiver_url());
    if (spec.find("@kafka-mock") != std::string::npos)
      replace_all(spec, "@kafka-mock", out->targets_->mock_brokers());
    auto c = outbox::parse_sink(spec);
    if (!c)
      return std::move(c.error());
    out->sinks_.push_back(std::move(*c));
  }
  return out;
}

sink_bench::~sink_bench() {
  stop();
}

caf::error sink_bench::start(caf::actor_system& sys, engine& eng, store_ptr st) {
  auto up_at = std::chrono::steady_clock::now() + targets_->down_for;
  targets_->down_until = up_at.time_since_epoch().count();
  if (targets_->mock != nullptr && targets_->down_for.count() > 0) {
    rd_kafka_mock_broker_set_down(targets_->mock, 1);
    targets_->mock_up = std::thread{[m = targets_->mock, up_at] {
      std::this_thread::sleep_until(up_at);
      rd_kafka_mock_broker_set_up(m, 1);
    }};
  }
  outbox::outbox_config cfg;
  cfg.sinks = sinks_;
  cfg.keep_lags = true;
  auto ob = outbox::outbox::start(sys, eng, std::move(st), cfg);
  if (!ob)
    return std::move(ob.error());
  outbox_ = std::move(*ob);
  return caf::error{};
}

boost::json::array sink_bench::finish(int64_t started_at_us, double limit_s) {
  boost::json::array out;
  if (!outbox_)
    return out;
  std::vector<int64_t> caught_up_at(sinks_.size(), 0);
  // A sink that delivered nothing yet (its target is down): when it
  // starts again, so that its backlog's rate can be told.
  std::vector<int64_t> resumed_at(sinks_.size(), -1);
  auto stats = outbox_->stats();
  for (size_t i = 0; i < sinks_.size(); ++i)
    if (stats[i].second->delivered.load() == 0)
      resumed_at[i] = 0;
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    auto status = outbox_->status();
    bool all = static_cast<bool>(status);
    for (size_t i = 0; status && i < status->size(); ++i) {
      if (resumed_at[i] == 0 && (*status)[i].delivered > 0)
        resumed_at[i] = wall_us();
      if ((*status)[i].lag == 0 && caught_up_at[i] == 0)
        caught_up_at[i] = wall_us();
      all = all && caught_up_at[i] != 0;
    }
    if (all || std::chrono::steady_clock::now() > until)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (size_t i = 0; i < sinks_.size(); ++i) {
    auto& s = *stats[i].second;
    auto lags = s.lags_ms();
    auto secs =
      caught_up_at[i] > 0 ? static_cast<double>(caught_up_at[i] - started_at_us) / 1e6 : -1.0;
    auto events = s.delivered.load();
    out.push_back(boost::json::object{
      {"name", sinks_[i].name},
      {"kind", to_string(sinks_[i].kind)},
      {"events", events},
      {"events_per_s", secs > 0 ? static_cast<double>(events) / secs : 0.0},
      {"caught_up_s", secs},
      {"lag_ms",
       {{"p50", quantile(lags, 0.5)}, {"p99", quantile(lags, 0.99)}, {"max", quantile(lags, 1.0)}}},
      {"failed", s.failed.load()}});
    if (resumed_at[i] > 0 && caught_up_at[i] > resumed_at[i]) {
      auto& o = out.back().as_object();
      o["resumed_s"] = static_cast<double>(resumed_at[i] - started_at_us) / 1e6;
      o["backlog_events_per_s"] =
        static_cast<double>(events) * 1e6 / static_cast<double>(caught_up_at[i] - resumed_at[i]);
    }
  }
  return out;
}

void sink_bench::stop() {
  if (outbox_)
    outbox_->stop();
  outbox_.reset();
  targets_.reset();
}

} // namespace stepwise::bench
