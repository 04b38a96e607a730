// One of the processes that the takeover test runs on one PostgreSQL
// schema. It starts N operations of a mixed workflow (steps, a retry, a
// durable sleep), records every step execution in a side-effect file
// outside the store, and runs until no operation of any process is left.
//
// usage: lease_child URI EFFECTS ACKED N TTL_MS
//   EFFECTS lines: "<op> <step> <attempt> <pid> <wall-clock µs>"
//   ACKED lines:   "<op>" for every start the engine acknowledged
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

int effects_fd = -1;

// One write(2) per line with O_APPEND: lines of several processes never
// interleave, and a line is whole even if we are killed right after.
void append(int fd, const std::string& line) {
  auto n = ::write(fd, line.data(), line.size());
  (void) n;
}

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

step_def effect(const std::string& name, bool retry_once) {
  return make_step(name, [name, retry_once](step_context& ctx) {
    append(effects_fd, ctx.operation_id() + " " + name + " "
                         + std::to_string(ctx.attempt()) + " "
                         + std::to_string(::getpid()) + " "
                         + std::to_string(wall_us()) + "\n");
    if (retry_once && ctx.attempt() == 1)
      return retry_after(100ms, "first attempt always retries");
    ctx.data()[name] = ctx.attempt();
    return done();
  });
}

// Operations not yet terminal, of every process (the store is shared).
bool any_active(engine& eng) {
  for (auto st : {op_state::pending, op_state::in_progress, op_state::waiting}) {
    list_filter f;
    f.state = st;
    f.limit = 1;
    auto page = eng.list(f);
    if (!page || !page->items.empty())
      return true;
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 6)
    return 2;
  effects_fd = ::open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0644);
  int acked_fd = ::open(argv[3], O_WRONLY | O_APPEND | O_CREAT, 0644);
  auto n = std::stoi(argv[4]);
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  registry reg;
  auto ok = reg.add(workflow("mixed", 1)
                      .step(1, effect("a", false))
                      .step(2, effect("b", true))
                      .step(3, make_sleep("nap", 600ms))
                      .step(4, effect("c", false))
                      .step(5, effect("d", false)));
  if (!ok)
    return 3;
  engine_config ec;
  ec.store_uri = argv[1];
  ec.lease_ttl = std::chrono::milliseconds(std::stoi(argv[5]));
  // The nap passivates: a taken-over sleeper's timer is re-armed from the
  // store, not from a live actor.
  ec.passivate_after = 300ms;
  auto eng = engine::launch(sys, ec, std::move(reg));
  if (!eng) {
    std::cerr << message_of(eng.error()) << '\n';
    return 4;
  }
  for (int i = 0; i < n; ++i) {
    auto res = eng->start({"mixed", std::nullopt, {{"i", i}}, {}, std::nullopt});
    if (res)
      append(acked_fd, res->op.id + "\n");
  }
  // Bounded: a takeover that never happens fails the test instead of
  // hanging it.
  auto limit = std::chrono::steady_clock::now() + 120s;
  while (any_active(*eng)) {
    if (std::chrono::steady_clock::now() > limit) {
      std::cerr << "lease_child: operations still active after 120 s\n";
      return 5;
    }
    std::this_thread::sleep_for(20ms);
  }
  eng->shutdown();
  return 0;
}
