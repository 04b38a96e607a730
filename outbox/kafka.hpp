#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "outbox/blocking_pool.hpp"
#include "outbox/destination.hpp"
#include "outbox/sink_config.hpp"

struct rd_kafka_conf_s;
using rd_kafka_conf_t = rd_kafka_conf_s;

namespace stepwise::outbox {

/// Produces batches to a Kafka topic with librdkafka: an idempotent
/// producer with the gap-less guarantee, so that the broker keeps each
/// partition's messages in order and a failed message fails every later
/// one of its partition (its producer then stops: it is rebuilt, and the
/// sink sends again from its cursor). Message key: the operation id (one
/// partition per operation, so its events stay in order); value: the
/// event's JSON, or Ignition's completion message for
/// `infrastructure_task_completed`; headers `message_id` and `type`.
///
/// A batch is acknowledged when every message of it has a successful
/// delivery report. Reports are served without a thread of ours: librdkafka
/// wakes us when its queue fills (`rd_kafka_queue_cb_event_enable`) and a
/// job on the outbox's pool polls it without waiting. Rebuilding a failed
/// producer (which blocks) runs there as well.
class kafka_destination final : public destination,
                                public std::enable_shared_from_this<kafka_destination> {
public:
  /// Checks the settings; the producer is made (and connects) at the first
  /// send. `password` is the SASL password (may be empty); errors name the
  /// setting, never a secret.
  [[nodiscard]] static caf::expected<std::shared_ptr<kafka_destination>> make(
    std::string sink, kafka_settings settings, std::string password,
    std::shared_ptr<blocking_pool> pool, std::function<void(const std::string&)> warn);

  ~kafka_destination() override;

  size_t window() const override {
    return 4;
  }

  size_t max_batch() const override {
    return 1000;
  }

  void send(event_batch_ptr batch, delivery_callback done) override;

  void stop() override;

  /// One librdkafka producer handle with its delivery-report plumbing
  /// (kafka.cpp); public for librdkafka's C callbacks.
  struct producer;

private:
  kafka_destination(std::string sink, kafka_settings settings, std::string password,
                    std::shared_ptr<blocking_pool> pool,
                    std::function<void(const std::string&)> warn);

  /// Returns the strings to scrub from messages (the SASL password).
  std::vector<std::string> secrets() const;

  /// Returns the producer's configuration, or why it is wrong.
  caf::expected<rd_kafka_conf_t*> make_conf() const;

  /// Returns a new producer, or why not.
  caf::expected<std::shared_ptr<producer>> make_producer() const;

  void produce(producer& p, const event_batch_ptr& batch, delivery_callback done) const;

  /// Replaces a producer that raised a fatal error, on the pool; `batch`
  /// and whatever comes meanwhile go out on the new one.
  void rebuild(event_batch_ptr batch, delivery_callback done);

  std::string sink_;
  kafka_settings settings_;
  std::string password_;
  std::shared_ptr<blocking_pool> pool_;
  std::function<void(const std::string&)> warn_;
  std::mutex mtx_;
  std::shared_ptr<producer> current_;
  bool rebuilding_ = false;
  bool stopped_ = false;
  std::deque<std::pair<event_batch_ptr, delivery_callback>> deferred_;
};

} // namespace stepwise::outbox
