#include <catch2/catch.hpp>

#include "tests/simulation/simulation.hpp"

namespace {

using stepwise::sim::simulate;
using stepwise::sim::sim_options;
using stepwise::sim::sim_report;

std::string describe(const sim_report& r) {
  std::string out = "seed " + std::to_string(r.seed) + ": " + r.violations.front()
                    + "\nsettings: " + r.settings + "\nreplay: STEPWISE_SIM_SEED="
                    + std::to_string(r.seed) + " build/stepwise-sim";
  for (auto& line : r.trace)
    out += "\n| " + line;
  return out;
}

void passes(uint64_t seed) {
  sim_options opts;
  opts.seed = seed;
  auto r = simulate(opts);
  if (!r.violations.empty()) {
    opts.trace = 60;
    r = simulate(opts);
  }
  INFO((r.violations.empty() ? std::string{} : describe(r)));
  CHECK(r.violations.empty());
}

} // namespace

TEST_CASE("a seed replays exactly", "[simulation]") {
  for (uint64_t seed : {3u, 17u}) {
    sim_options opts;
    opts.seed = seed;
    auto a = simulate(opts);
    auto b = simulate(opts);
    CHECK(a.path == b.path);
    CHECK(a.checks == b.checks);
    CHECK(a.deliveries == b.deliveries);
    CHECK(a.operations == b.operations);
    CHECK(a.deliveries > 100);
  }
}

TEST_CASE("the fixed seed set keeps every invariant", "[simulation]") {
  auto count = std::getenv("STEPWISE_SIM_SEEDS") ? std::strtoull(std::getenv("STEPWISE_SIM_SEEDS"), nullptr, 10)
                                                 : 200;
  for (uint64_t seed = 1; seed <= count; ++seed)
    passes(seed);
}
