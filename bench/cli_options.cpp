// stepwise-bench's command line.
#include "bench/cli_options.hpp"

#include <cstdio>
#include <exception>

#include "workflows/bench.hpp"

namespace stepwise::bench {

// Prints the usage after `why` (none for --help, which goes to stdout).
int usage(const char* why) {
  if (why != nullptr)
    std::fprintf(stderr, "stepwise-bench: %s\n", why);
  std::fprintf(
    why != nullptr ? stderr : stdout,
    "usage: stepwise-bench --workload steps|retry|timers|io --n N [--runs R]\n"
    "       [--via embedded|http] [--store URI] [--url URL] [--token T] [--pool P]\n"
    "       [--limit SECONDS] [--passivate-ms MS] [--wake-lead-ms MS] [--dispatch-lead-ms MS]\n"
    "       [--concurrency C] [--steps pool|inline]\n"
    "       [--window W] [--sleep-s S]\n"
    "       [--store-pid PID] [--start-at EPOCH_MS] [--sink SPEC]...\n"
    "       [--targets-down-s S]\n"
    "       io: [--call-ms MS] [--server-bin PATH] [--server-pid PID]\n"
    "           [--driver-url URL]\n"
    "       stepwise-bench --serve-driver [--listen HOST:PORT] [--call-ms MS]\n"
    "--sink: as stepwise serve's; @receiver is a built-in webhook receiver,\n"
    "@kafka-mock/TOPIC librdkafka's mock cluster (topic completions).\n"
    "--targets-down-s: @receiver answers 503 and @kafka-mock's broker is down\n"
    "for S seconds from the start.\n"
    "--via http needs a running `stepwise serve --workflows demo,bench`\n"
    "(io: one is started per run unless --url is given).\n");
  return why != nullptr ? 2 : 0;
}

bool parse(int argc, char** argv, cli_options& o, std::string& err) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--serve-driver") {
      o.serve_driver = true;
      continue;
    }
    if (k == "--help" || k == "-h") {
      o.help = true;
      continue;
    }
    if (i + 1 >= argc) {
      err = "flag " + k + " needs a value";
      return false;
    }
    std::string v = argv[++i];
    try {
      if (k == "--workload")
        o.workload = v;
      else if (k == "--n")
        o.n = std::stoul(v);
      else if (k == "--runs")
        o.runs = std::stoi(v);
      else if (k == "--via")
        o.via = v;
      else if (k == "--store")
        o.store = v;
      else if (k == "--url")
        o.url = v, o.url_given = true;
      else if (k == "--token")
        o.token = v;
      else if (k == "--pool")
        o.pool = std::stoul(v);
      else if (k == "--limit")
        o.limit_s = std::stod(v);
      else if (k == "--passivate-ms")
        o.passivate_ms = std::stoll(v);
      else if (k == "--wake-lead-ms")
        o.wake_lead_ms = std::stoll(v);
      else if (k == "--dispatch-lead-ms")
        o.dispatch_lead_ms = std::stoll(v);
      else if (k == "--steps") {
        if (v != "pool" && v != "inline") {
          err = "--steps takes pool or inline, not '" + v + "'";
          return false;
        }
        o.inline_steps = v == "inline";
      } else if (k == "--concurrency")
        o.concurrency = std::stoul(v);
      else if (k == "--window")
        o.window = std::stoul(v);
      else if (k == "--sleep-s")
        o.sleep_s = std::stod(v);
      else if (k == "--store-pid")
        o.store_pid = std::stoi(v);
      else if (k == "--start-at")
        o.start_at_ms = std::stoll(v);
      else if (k == "--sink")
        o.sinks.push_back(v);
      else if (k == "--targets-down-s")
        o.targets_down_s = std::stod(v);
      else if (k == "--call-ms")
        o.io.call_ms = std::stoll(v);
      else if (k == "--server-bin")
        o.io.server_bin = v;
      else if (k == "--server-pid")
        o.io.server_pid = std::stoi(v);
      else if (k == "--driver-url")
        o.io.driver_url = v;
      else if (k == "--listen")
        o.listen = v;
      else {
        err = "unknown flag " + k;
        return false;
      }
    } catch (const std::exception&) {
      err = "bad value '" + v + "' for " + k;
      return false;
    }
  }
  if (o.workload != "io" && workflows::bench_workflow_of(o.workload, o.inline_steps).empty()) {
    err = "unknown workload '" + o.workload + "'";
    return false;
  }
  if (o.n == 0 || o.runs < 1) {
    err = "--n and --runs must be positive";
    return false;
  }
  return true;
}
} // namespace stepwise::bench
