// stepwise-sim: runs seeds of the deterministic simulation and says what
// they found. See tests/simulation/README.md.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

#include "tests/simulation/simulation.hpp"

namespace {

void usage(std::ostream& out) {
  out << "usage: stepwise-sim [--seeds N] [--from S] [--calls C] [--trace LINES]\n"
         "  Runs N seeds (default 100) from S (default 1) of the deterministic\n"
         "  simulation; prints each failing seed with what it broke, then one JSON\n"
         "  line with the totals. STEPWISE_SIM_SEED=S runs that one seed with its\n"
         "  trace (the last 200 lines, or --trace LINES).\n";
}

bool number(const char* text, uint64_t& out) {
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return end != text && *end == '\0';
}

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
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      usage(std::cout);
      return 0;
    }
    uint64_t* target = flag == "--seeds"   ? &seeds
                       : flag == "--from"  ? &from
                       : flag == "--calls" ? &calls
                       : flag == "--trace" ? &trace
                                           : nullptr;
    if (!target || i + 1 >= argc || !number(argv[i + 1], *target)) {
      std::cerr << "stepwise-sim: bad argument '" << flag << "'\n";
      usage(std::cerr);
      return 2;
    }
    ++i;
  }
  if (auto* one = std::getenv("STEPWISE_SIM_SEED")) {
    if (!number(one, from)) {
      std::cerr << "stepwise-sim: STEPWISE_SIM_SEED must be a number\n";
      return 2;
    }
    seeds = 1;
    trace = trace == 0 ? 200 : trace;
  }
  auto t0 = std::chrono::steady_clock::now();
  std::set<uint64_t> paths;
  uint64_t failed = 0, checks = 0, deliveries = 0, restarts = 0, operations = 0;
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
    operations += r.operations;
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
            << ",\"operations\":" << operations << ",\"seconds\":" << secs << "}\n";
  return failed == 0 ? 0 : 1;
}
