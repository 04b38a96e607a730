// The process that the durability test kills. It runs a workflow whose
// steps record each execution in a side-effect file outside the store,
// and appends every acknowledged operation id to a second file.
//
// usage: crash_child DB EFFECTS ACKED run N   (start N operations, run on)
//        crash_child DB EFFECTS ACKED finish  (resume, exit when all done)
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
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

// One write(2) per line with O_APPEND: a line is whole even if we are
// killed right after, and the page cache outlives the process.
void append(int fd, const std::string& line) {
  auto n = ::write(fd, line.data(), line.size());
  (void) n;
}

step_def effect(const std::string& name, bool retry_once) {
  return make_step(name, [name, retry_once](step_context& ctx) {
    append(effects_fd, ctx.operation_id() + " " + name + " "
                         + std::to_string(ctx.attempt()) + "\n");
    if (retry_once && ctx.attempt() == 1)
      return retry_after(30ms, "first attempt always retries");
    ctx.data()[name] = ctx.attempt();
    return done();
  });
}

size_t active(engine& eng) {
  size_t n = 0;
  for (auto st : {op_state::pending, op_state::in_progress, op_state::waiting}) {
    list_filter f;
    f.state = st;
    f.limit = 1;
    auto page = eng.list(f);
    if (!page)
      return 1;
    n += page->items.size();
  }
  return n;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 5)
    return 2;
  std::string mode = argv[4];
  effects_fd = ::open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0644);
  int acked_fd = ::open(argv[3], O_WRONLY | O_APPEND | O_CREAT, 0644);
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  registry reg;
  auto ok = reg.add(workflow("crashy", 1)
                      .step(1, effect("a", false))
                      .step(2, effect("b", true))
                      .step(3, make_sleep("nap", 40ms))
                      .step(4, effect("c", false))
                      .step(5, effect("d", false)));
  if (!ok)
    return 3;
  engine_config ec;
  ec.store_uri = std::string{"sqlite:"} + argv[1];
  // Passivate even the short sleeps, so that wake-ups cross restarts too.
  ec.passivate_after = 35ms;
  auto eng = engine::launch(sys, ec, std::move(reg));
  if (!eng) {
    std::cerr << message_of(eng.error()) << '\n';
    return 4;
  }
  if (mode == "run") {
    auto n = std::stoi(argv[5]);
    for (int i = 0; i < n; ++i) {
      auto res = eng->start({"crashy", std::nullopt, {{"i", i}}, {}, std::nullopt});
      if (res)
        append(acked_fd, res->op.id + "\n");
    }
  }
  // Run until every operation is terminal (or until killed).
  for (;;) {
    if (active(*eng) == 0 && mode == "finish")
      break;
    std::this_thread::sleep_for(20ms);
  }
  eng->shutdown();
  return 0;
}
