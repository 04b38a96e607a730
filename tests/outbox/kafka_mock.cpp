#include "tests/outbox/kafka_mock.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace stepwise::test {

namespace {

rd_kafka_conf_t* quiet_conf() {
  auto* conf = rd_kafka_conf_new();
  char err[256];
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  return conf;
}

} // namespace

kafka_mock::kafka_mock(std::string topic, int partitions)
  : topic_(std::move(topic)), partitions_(partitions) {
  char err[256];
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, quiet_conf(), err, sizeof err);
  if (rk_ == nullptr)
    throw std::runtime_error(err);
  cluster_ = rd_kafka_mock_cluster_new(rk_, 1);
  rd_kafka_mock_topic_create(cluster_, topic_.c_str(), partitions_, 1);
}

kafka_mock::~kafka_mock() {
  rd_kafka_mock_cluster_destroy(cluster_);
  rd_kafka_destroy(rk_);
}

std::string kafka_mock::bootstraps() const {
  return rd_kafka_mock_cluster_bootstraps(cluster_);
}

void kafka_mock::fail_produce(const std::vector<rd_kafka_resp_err_t>& errs) {
  rd_kafka_mock_push_request_errors_array(cluster_, 0 /* Produce */, errs.size(), errs.data());
}

std::vector<kafka_record> kafka_mock::read_all(size_t n, std::chrono::seconds limit) const {
  char err[256];
  auto* conf = quiet_conf();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps().c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", "stepwise-test", err, sizeof err);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
  rd_kafka_conf_set(conf, "fetch.wait.max.ms", "10", err, sizeof err);
  auto* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  auto* parts = rd_kafka_topic_partition_list_new(partitions_);
  for (int p = 0; p < partitions_; ++p)
    rd_kafka_topic_partition_list_add(parts, topic_.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  // Everything written so far: up to each partition's high watermark.
  std::map<int32_t, int64_t> end;
  for (int p = 0; p < partitions_; ++p) {
    int64_t low = 0;
    int64_t high = 0;
    if (rd_kafka_query_watermark_offsets(rk, topic_.c_str(), p, &low, &high, 5000)
          == RD_KAFKA_RESP_ERR_NO_ERROR
        && high > 0)
      end[p] = high;
  }
  std::map<std::pair<int32_t, int64_t>, kafka_record> got;
  std::map<int32_t, int64_t> next;
  auto done = [&] {
    for (auto& [p, high] : end)
      if (next[p] < high)
        return false;
    return got.size() >= n;
  };
  auto until = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < until) {
    auto* m = rd_kafka_consumer_poll(rk, 100);
    if (m == nullptr)
      continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      kafka_record r;
      r.key.assign(static_cast<const char*>(m->key), m->key_len);
      r.value.assign(static_cast<const char*>(m->payload), m->len);
      r.partition = m->partition;
      r.offset = m->offset;
      rd_kafka_headers_t* hs = nullptr;
      const void* v = nullptr;
      size_t len = 0;
      if (rd_kafka_message_headers(m, &hs) == RD_KAFKA_RESP_ERR_NO_ERROR
          && rd_kafka_header_get_last(hs, "message_id", &v, &len) == RD_KAFKA_RESP_ERR_NO_ERROR)
        r.message_id.assign(static_cast<const char*>(v), len);
      next[r.partition] = std::max(next[r.partition], r.offset + 1);
      got[{r.partition, r.offset}] = std::move(r);
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  std::vector<kafka_record> out;
  for (auto& kv : got)
    out.push_back(std::move(kv.second));
  return out;
}

} // namespace stepwise::test
