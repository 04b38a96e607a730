// stepwise-sim: runs seeds of the deterministic simulation and says what
// they found. See tests/simulation/README.md.
#include <CLI/CLI.hpp>

#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

#include "tests/simulation/simulation.hpp"

namespace {

void print_failure(const stepwise::sim::sim_report& r) {
  std::cout << "seed " << r.seed << " FAILED: " << r.violations.front() << "\n"
            << "  settings: " << r.settings << "\n"
            << "  replay: STEPWISE_SIM_SEED=" << r.seed << " stepwise-sim\n";
  for (auto& line : r.trace)
    std::cout << "  | " << line << "\n";
}

} // namespace

int main(int argc, char** argv) {
  uint64_t seeds = 100;
  uint64_t from = 1;
  uint64_t calls = 40;
  uint64_t trace = 0;
  CLI::App app{"Runs seeds of the deterministic simulation (tests/simulation/README.md);\n"
               "prints each failing seed with what it broke, then one JSON line with the\n"
               "totals. STEPWISE_SIM_SEED=S runs that one seed with its trace.",
               "stepwise-sim"};
  app.add_option("--seeds", seeds, "how many seeds (default 100)")->type_name("N");
  app.add_option("--from", from, "the first seed (default 1)")->type_name("S");
  app.add_option("--calls", calls, "client requests per seed (default 40)")->type_name("C");
  app
    .add_option("--trace", trace,
                "keep the last LINES of each trace (default 0; 200 with "
                "STEPWISE_SIM_SEED)")
    ->type_name("LINES");
  CLI11_PARSE(app, argc, argv);
  if (auto* one = std::getenv("STEPWISE_SIM_SEED")) {
    char* end = nullptr;
    from = std::strtoull(one, &end, 10);
    if (end == one || *end != '\0') {
      std::cerr << "stepwise-sim: STEPWISE_SIM_SEED must be a number\n";
      return 2;
    }
    seeds = 1;
    trace = trace == 0 ? 200 : trace;
  }
  auto t0 = std::chrono::steady_clock::now();
  std::set<uint64_t> paths;
  uint64_t failed = 0, checks = 0, deliveries = 0, restarts = 0, operations = 0, drains = 0,
           drained = 0, removed = 0, stored = 0, carried = 0, shared = 0, heard = 0, twice = 0,
           lost = 0, dropped = 0, handed = 0, taken = 0, refused = 0;
  std::array<uint64_t, 3> repairs{};
  for (uint64_t s = from; s < from + seeds; ++s) {
    stepwise::sim::sim_options opts;
    opts.seed = s;
    opts.calls = calls;
    opts.trace = trace;
    auto r = stepwise::sim::simulate(opts);
    std::cout.flush();
    paths.insert(r.path);
    checks += r.checks;
    deliveries += r.deliveries;
    restarts += r.restarts;
    drains += r.drains;
    drained += r.drained;
    operations += r.operations;
    removed += r.removed;
    stored += r.commands_stored;
    carried += r.commands_carried;
    for (size_t i = 0; i < repairs.size(); ++i)
      repairs[i] += r.repairs[i];
    shared += r.processes > 1 ? 1 : 0;
    heard += r.notices.delivered;
    twice += r.notices.duplicated;
    lost += r.notices.lost;
    dropped += r.notices.dropped_connections;
    handed += r.tasks_handed;
    taken += r.task_answers;
    refused += r.task_answers_refused;
    if (!r.violations.empty()) {
      ++failed;
      print_failure(r);
    } else if (seeds == 1) {
      std::cout << "seed " << s << " passed: " << r.settings << "\n";
      for (auto& line : r.trace)
        std::cout << "  | " << line << "\n";
    }
  }
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "{\"seeds\":" << seeds << ",\"from\":" << from << ",\"failed\":" << failed
            << ",\"distinct_paths\":" << paths.size() << ",\"invariant_checks\":" << checks
            << ",\"deliveries\":" << deliveries << ",\"restarts\":" << restarts
            << ",\"drains\":" << drains << ",\"drained\":" << drained
            << ",\"operations\":" << operations << ",\"removed\":" << removed
            << ",\"commands_stored\":" << stored << ",\"commands_carried\":" << carried
            << ",\"inputs_patched\":" << repairs[0] << ",\"steps_resets\":" << repairs[1]
            << ",\"steps_skipped_by_request\":" << repairs[2]
            << ",\"seeds_with_several_processes\":" << shared << ",\"notices_heard\":" << heard
            << ",\"notices_heard_twice\":" << twice << ",\"notices_lost\":" << lost
            << ",\"listening_connections_dropped\":" << dropped << ",\"tasks_handed\":" << handed
            << ",\"task_answers_taken\":" << taken << ",\"task_answers_stale\":" << refused
            << ",\"seconds\":" << secs << "}\n";
  return failed == 0 ? 0 : 1;
}
