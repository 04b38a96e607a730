#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

namespace stepwise::test {

/// One message read back from the mock cluster.
struct kafka_record {
  std::string key;
  std::string value;
  /// The `message_id` header.
  std::string message_id;
  int32_t partition = 0;
  int64_t offset = 0;
};

/// librdkafka's built-in mock cluster (no broker needed) with one topic,
/// listening on 127.0.0.1 so that child processes can produce to it too.
class kafka_mock {
public:
  explicit kafka_mock(std::string topic = "completions", int partitions = 4);
  ~kafka_mock();

  kafka_mock(const kafka_mock&) = delete;
  kafka_mock& operator=(const kafka_mock&) = delete;

  /// Returns the brokers' `host:port,...` list.
  std::string bootstraps() const;

  const std::string& topic() const {
    return topic_;
  }

  /// Makes the next Produce requests fail with `errs`, one each.
  void fail_produce(const std::vector<rd_kafka_resp_err_t>& errs);

  /// Reads the topic from the beginning up to what was written when called,
  /// and at least `n` messages (or until `limit`); returns the messages
  /// partition by partition, in offset order.
  std::vector<kafka_record> read_all(size_t n, std::chrono::seconds limit) const;

private:
  std::string topic_;
  int partitions_;
  rd_kafka_t* rk_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

} // namespace stepwise::test
