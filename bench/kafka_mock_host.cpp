// `build/bench/kafka-mock [--topic T] [--partitions P] [--brokers B]`: runs
// librdkafka's mock cluster in a process of its own until SIGINT or
// SIGTERM, so that `stepwise serve --sink NAME=kafka:...` and `kcat` can
// be tried without a Kafka broker. Prints the bootstrap list on stdout.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

namespace {

int usage() {
  std::fprintf(stderr, "usage: kafka-mock [--topic T] [--partitions P] [--brokers B]\n"
                       "defaults: topic lm_vim_infrastructure_task_events, 4 "
                       "partitions, 1 broker\n");
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  std::string topic = "lm_vim_infrastructure_task_events";
  int partitions = 4;
  int brokers = 1;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc)
      return usage();
    std::string v = argv[++i];
    if (k == "--topic")
      topic = v;
    else if (k == "--partitions")
      partitions = std::atoi(v.c_str());
    else if (k == "--brokers")
      brokers = std::atoi(v.c_str());
    else
      return usage();
  }
  if (topic.empty() || partitions < 1 || brokers < 1)
    return usage();
  // Block the signals before librdkafka starts its threads, so that only
  // sigwait below takes them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  char err[256];
  auto* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  auto* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) {
    std::fprintf(stderr, "kafka-mock: %s\n", err);
    return 1;
  }
  auto* mock = rd_kafka_mock_cluster_new(rk, brokers);
  if (mock == nullptr) {
    std::fprintf(stderr, "kafka-mock: cannot start the mock cluster\n");
    return 1;
  }
  if (auto e = rd_kafka_mock_topic_create(mock, topic.c_str(), partitions, 1)) {
    std::fprintf(stderr, "kafka-mock: %s\n", rd_kafka_err2str(e));
    return 1;
  }
  std::printf("%s\n", rd_kafka_mock_cluster_bootstraps(mock));
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  rd_kafka_mock_cluster_destroy(mock);
  rd_kafka_destroy(rk);
  return 0;
}
