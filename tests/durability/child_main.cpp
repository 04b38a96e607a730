#include "tests/durability/child_main.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/errc.hpp"
#include "storage/open_engine.hpp"
#include "storage/open_store.hpp"

namespace stepwise::test {

namespace {

using namespace std::chrono_literals;

int effects_fd = -1;
int acked_fd = -1;
effect_stamp stamp = effect_stamp::none;

// One write(2) per line with O_APPEND: lines of several processes never
// interleave, a line is whole even if we are killed right after, and the
// page cache outlives the process.
void append(int fd, const std::string& line) {
  auto n = ::write(fd, line.data(), line.size());
  (void)n;
}

int open_for_append(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
}

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Whether an operation of any process (the store may be shared) is not
// yet terminal and not paused. One store query per page, not one list per
// state: an operation that went from waiting back to in_progress between
// two lists was in neither, and the child exited under it (the parent of a
// fan-out, whose children all ended, in the sanitized CI). Pages follow
// creation order, so every operation is looked at once; one still active
// when looked at keeps the child running. A failed read counts as active.
bool any_active(store& st) {
  constexpr size_t page_size = 256;
  std::optional<active_position> after;
  for (;;) {
    auto page = st.load_active_page(after, page_size);
    if (!page)
      return true;
    for (auto& op : *page)
      if (op.state != op_state::paused)
        return true;
    if (page->size() < page_size)
      return false;
    after = active_position{page->back().created_at, page->back().id};
  }
}

} // namespace

std::optional<child_args> parse_child_args(int argc, char** argv, size_t min_own) {
  if (argc < 4 || static_cast<size_t>(argc - 4) < min_own)
    return std::nullopt;
  return child_args{argv[1], argv[2], argv[3], {argv + 4, argv + argc}};
}

step_def effect_step(const std::string& name, std::optional<duration> first_retry, duration busy) {
  return make_step(name, [name, first_retry, busy](step_context& ctx) {
    auto line = ctx.operation_id() + " " + name + " " + std::to_string(ctx.attempt());
    if (stamp == effect_stamp::pid_and_time)
      line += " " + std::to_string(::getpid()) + " " + std::to_string(wall_us());
    append(effects_fd, line + "\n");
    if (busy > duration::zero())
      std::this_thread::sleep_for(busy);
    if (first_retry && ctx.attempt() == 1)
      return retry_after(*first_retry, "first attempt always retries");
    ctx.data()[name] = ctx.attempt();
    return done();
  });
}

void acknowledge(const std::string& line) {
  append(acked_fd, line + "\n");
}

void record_effect(const std::string& line) {
  append(effects_fd, line + "\n");
}

int run_child(const child_args& args, child_setup setup) {
  effects_fd = open_for_append(args.effects);
  stamp = setup.stamp;
  acked_fd = open_for_append(args.acked);
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  if (setup.with_system)
    setup.with_system(sys, setup);
  registry reg;
  for (auto& wf : setup.workflows)
    if (!reg.add(std::move(wf)))
      return exit_bad_workflow;
  auto eng = open_engine(sys, setup.engine, std::move(reg));
  if (!eng) {
    std::cerr << message_of(eng.error()) << '\n';
    return exit_launch_failed;
  }
  for (int i = 0; i < setup.starts; ++i) {
    auto res = eng->start({setup.start_workflow, std::nullopt, {{"i", i}}, {}, std::nullopt});
    if (res)
      acknowledge(res->op.id);
  }
  for (auto& req : setup.more_starts) {
    if (auto res = eng->start(req))
      acknowledge(res->op.id);
    if (setup.start_gap > duration::zero())
      std::this_thread::sleep_for(setup.start_gap);
  }
  if (setup.script)
    if (auto status = setup.script(*eng); status != 0)
      std::_Exit(status); // the actor system would wait for the engine's actors
  std::optional<std::chrono::steady_clock::time_point> give_up;
  if (setup.idle_within)
    give_up = std::chrono::steady_clock::now() + *setup.idle_within;
  auto reads = open_store(setup.engine.store_uri);
  if (!reads) {
    std::cerr << message_of(reads.error()) << '\n';
    return exit_launch_failed;
  }
  while (!setup.exit_when_idle || any_active(**reads)) {
    if (give_up && std::chrono::steady_clock::now() > *give_up) {
      auto s = std::chrono::duration_cast<std::chrono::seconds>(*setup.idle_within);
      std::cerr << "child: operations still active after " << s.count() << " s\n";
      return exit_still_active;
    }
    std::this_thread::sleep_for(20ms);
  }
  eng->shutdown();
  return 0;
}

} // namespace stepwise::test
