// stepwise-bench's command line (CLI11).
#include "bench/cli_options.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "engine/duration_text.hpp"
#include "workflows/bench.hpp"

namespace stepwise::bench {

namespace {

constexpr const char* about =
  "Runs the benchmark workloads (bench/README.md) and prints one JSON line per run.\n"
  "--via http needs a running `stepwise serve --workflows demo,bench` (io: one is\n"
  "started per run unless --url is given). `stepwise-bench --serve-driver` serves\n"
  "the Infrastructure API on the simulated cloud, for the io workload over HTTP.";

/// Builds the command line, its values landing in `o`.
std::unique_ptr<CLI::App> make_app(cli_options& o, std::string& steps) {
  auto app = std::make_unique<CLI::App>(about, "stepwise-bench");
  auto& a = *app;
  a.add_option(
     "--workload", o.workload,
     "steps (W1), retry (W2), timers (W3), sleepers, io, schedules, children, streams or tasks")
    ->type_name("W");
  a.add_option("--n", o.n, "operations per run")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{100'000'000}));
  a.add_option("--runs", o.runs, "runs (the median is what to report)")
    ->type_name("R")
    ->check(CLI::Range(1, 1000));
  a.add_option("--via", o.via, "embedded (the engine in this process) or http")
    ->type_name("embedded|http")
    ->check(CLI::IsMember({"embedded", "http"}));
  a.add_option("--store", o.store, "the store (default: a fresh SQLite file in /tmp per run)")
    ->type_name("URI");
  a.add_option_function<std::string>(
     "--url",
     [&o](const std::string& v) {
       o.url = v;
       o.url_given = true;
     },
     "--via http: the server")
    ->type_name("URL");
  a.add_option("--token", o.token, "--via http: bearer token")
    ->type_name("T")
    ->envname("STEPWISE_TOKEN");
  a.add_option("--pool", o.pool, "step workers")->type_name("P");
  a.add_option("--limit", o.limit_s, "a run's time limit, in seconds")->type_name("SECONDS");
  a.add_option("--passivate-ms", o.passivate_ms, "engine_config::passivate_after")->type_name("MS");
  a.add_option("--wake-lead-ms", o.wake_lead_ms, "engine_config::wake_lead")->type_name("MS");
  a.add_option("--dispatch-lead-ms", o.dispatch_lead_ms, "engine_config::dispatch_lead")
    ->type_name("MS");
  a.add_option("--concurrency", o.concurrency, "--via http: connections submitting at once")
    ->type_name("C");
  a.add_option("--steps", steps, "pool (on the step workers) or inline (on the actors)")
    ->type_name("pool|inline")
    ->check(CLI::IsMember({"pool", "inline"}));
  a.add_option("--create-window", o.create_window,
               "embedded: the engine's create_window (creates written at once; 0: no window)");
  a.add_option("--window", o.window, "embedded: at most W creates unanswered (0: all at once)")
    ->type_name("W");
  a.add_option("--prefill", o.prefill,
               "embedded steps: ended operations written into the store first; the "
               "operation list is timed after the run")
    ->type_name("P");
  a.add_option_function<std::string>(
     "--retention",
     [&o](const std::string& v) {
       auto d = v == "0" ? std::optional<duration>{duration::zero()} : parse_duration_text(v);
       if (!d)
         throw CLI::ValidationError("--retention", "not a duration (1m, 30d): " + v);
       o.retention = *d;
     },
     "embedded steps and steady: the engine's retention (0: off)")
    ->type_name("DURATION");
  a.add_option("--retention-batch", o.retention_batch, "operations per retention batch")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{100'000}));
  a.add_option("--sample-s", o.sample_s, "steady: how often the store's size is read")
    ->type_name("S")
    ->check(CLI::Range(0.1, 3600.0));
  a.add_option("--sleep-s", o.sleep_s, "timers: the durable sleep, in seconds")->type_name("S");
  a.add_option("--child-limit", o.child_limit, "children: most children in progress at once")
    ->type_name("N");
  a.add_option("--store-pid", o.store_pid, "the store server's main process, for its CPU")
    ->type_name("PID");
  a.add_option("--start-at", o.start_at_ms, "start the run at this wall-clock time")
    ->type_name("EPOCH_MS");
  a.add_option("--sink", o.sinks,
               "a sink for the run, as stepwise serve's; @receiver is a built-in webhook "
               "receiver, @kafka-mock/TOPIC librdkafka's mock cluster (repeatable)")
    ->type_name("SPEC")
    ->type_size(1)
    ->allow_extra_args(false);
  a.add_option("--targets-down-s", o.targets_down_s,
               "@receiver answers 503 and @kafka-mock's broker is down for S seconds from the "
               "start")
    ->type_name("S");
  a.add_option("--every-s", o.every_s, "schedules: each schedule's period, in seconds")
    ->type_name("S")
    ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  a.add_option("--duration-s", o.duration_s,
               "schedules: how long the run fires; steady: how long it starts operations (s)")
    ->type_name("S");
  a.add_flag("--aligned", o.aligned,
             "schedules: every schedule fires at the same instant (default: spread over the "
             "period by offsets)");
  a.add_option("--streams", o.streams, "streams: event streams held open")
    ->type_name("N")
    ->check(CLI::Range(size_t{0}, size_t{1'000'000}));
  a.add_option("--stalled", o.stalled, "streams: clients stalled mid-header held open")
    ->type_name("N")
    ->check(CLI::Range(size_t{0}, size_t{1'000'000}));
  a.add_option("--rate", o.rate,
               "streams: operations started a second (--n of them); steady: W1 operations a second")
    ->type_name("R")
    ->check(CLI::Range(0.1, 100000.0));
  a.add_option("--workers", o.task_workers,
               "tasks: worker connections that poll and complete tasks over HTTP")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{1000}));
  a.add_option("--pollers", o.pollers, "tasks: idle long polls held open at once")
    ->type_name("N")
    ->check(CLI::Range(size_t{0}, size_t{100'000}));
  a.add_option("--call-ms", o.io.call_ms, "io: how long each driver call takes")->type_name("MS");
  a.add_option("--driver-connections", o.io.driver_connections,
               "io over HTTP: the started server's --driver-connections (default: its own)")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{100'000}));
  a.add_option("--server-bin", o.io.server_bin, "io over HTTP: the stepwise binary to start")
    ->type_name("PATH");
  a.add_option("--server-pid", o.io.server_pid, "io over HTTP with --url: the server's process")
    ->type_name("PID");
  a.add_option("--driver-url", o.io.driver_url, "io over HTTP: a running driver process")
    ->type_name("URL");
  a.add_flag("--serve-driver", o.serve_driver, "serve the Infrastructure API (see above)");
  a.add_option("--listen", o.listen, "--serve-driver: where")->type_name("HOST:PORT");
  return app;
}

} // namespace

int usage(const char* why) {
  cli_options o;
  std::string steps;
  auto help = make_app(o, steps)->help();
  if (why != nullptr)
    std::fprintf(stderr, "stepwise-bench: %s\n\n%s", why, help.c_str());
  else
    std::printf("%s", help.c_str());
  return why != nullptr ? 2 : 0;
}

bool parse(int argc, char** argv, cli_options& o, std::string& err) {
  std::string steps = "pool";
  auto app = make_app(o, steps);
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
    return true;
  } catch (const CLI::ParseError& e) {
    err = e.what();
    return false;
  }
  o.inline_steps = steps == "inline";
  if (o.workload != "io" && o.workload != "schedules" && o.workload != "children"
      && o.workload != "streams" && o.workload != "steady" && o.workload != "tasks"
      && workflows::bench_workflow_of(o.workload, o.inline_steps).empty()) {
    err = "unknown workload '" + o.workload + "'";
    return false;
  }
  return true;
}

} // namespace stepwise::bench
