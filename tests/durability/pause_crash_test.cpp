// Pause and resume across SIGKILL: an operation paused (or asked to pause
// while its step runs) in a child killed at a random point stays paused in
// every process after that, holds no actor there, runs nothing, and a
// resume after the restarts continues it from the step where it stopped.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tests/durability/admission_log.hpp"
#include "tests/durability/child_process.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

/// Waits (at most 60 s) until ACKED has a line starting with `prefix`.
bool await_line(const std::string& acked, const std::string& prefix) {
  auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    for (auto& l : lines(acked))
      if (l.rfind(prefix, 0) == 0)
        return true;
    if (std::chrono::steady_clock::now() > limit)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

/// Kills `pid` with SIGKILL and reaps it; returns whether it was still running.
bool kill_child(pid_t pid) {
  ::kill(pid, SIGKILL);
  auto status = reap(pid);
  return WIFSIGNALED(status);
}

} // namespace

TEST_CASE("a paused operation stays paused across SIGKILL and resumes after it",
          "[durability][pause]") {
  auto child = env_or_empty("STEPWISE_TEST_CHILD");
  REQUIRE(!child.empty());
  char tmpl[] = "/tmp/stepwise-pause-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto uri = "sqlite:" + dir + "/ops.db", effects = dir + "/effects", acked = dir + "/acked";
  std::mt19937 rng{std::random_device{}()};
  // The pausable operation's first step works 100 ms: a kill soon after
  // the pause was asked often lands before the pause was taken.
  std::uniform_int_distribution<int> kill_after_ms{0, 150};

  auto pid = spawn({child, "admission", uri, effects, acked, "pause"});
  REQUIRE(pid > 0);
  auto first_pid = pid;
  REQUIRE(await_line(acked, "asked "));
  std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
  CHECK(kill_child(pid));
  auto id = lines(acked).front();

  // Several restarts, each killed at a random point once it saw the
  // operation paused with no actor.
  size_t effects_when_held = 0;
  for (int i = 0; i < 4; ++i) {
    auto before = lines(acked).size();
    pid = spawn({child, "admission", uri, effects, acked, "hold", id});
    REQUIRE(pid > 0);
    // The child gives up after 60 s and says why.
    auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (lines(acked).size() == before && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto said = lines(acked);
    REQUIRE(said.size() == before + 1);
    INFO("restart " << i);
    CHECK(said.back() == "held " + id);
    if (i == 0)
      effects_when_held = lines(effects).size(); // a pause asked mid-step ran it again
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    CHECK(kill_child(pid));
  }
  // Paused: nothing ran in the processes after the first that held it.
  CHECK(lines(effects).size() == effects_when_held);

  pid = spawn({child, "admission", uri, effects, acked, "resume", id});
  REQUIRE(exited_zero(reap(pid)));

  auto st = open_store(uri);
  REQUIRE(st);
  auto op = (*st)->load(id);
  REQUIRE(op);
  REQUIRE(op->has_value());
  CHECK((*op)->state == op_state::succeeded);
  for (auto& s : (*op)->steps)
    CHECK(s.state == step_state::succeeded);
  auto events = (*st)->events_after(0, 1'000'000);
  REQUIRE(events);
  int64_t paused_seq = 0, resumed_seq = 0, resumed_us = 0;
  std::vector<int64_t> started; // step_started seqs
  std::string paused_at;
  for (auto& e : *events) {
    if (e.operation_id != id)
      continue;
    if (e.type == event_type::operation_paused) {
      CHECK(paused_seq == 0); // paused once, kills or not
      paused_seq = e.seq;
      paused_at = e.step;
    }
    if (e.type == event_type::operation_resumed) {
      CHECK(resumed_seq == 0);
      resumed_seq = e.seq;
      resumed_us = micros(e.time);
    }
    if (e.type == event_type::step_started)
      started.push_back(e.seq);
  }
  REQUIRE(paused_seq > 0);
  REQUIRE(resumed_seq > paused_seq);
  for (auto seq : started)
    CHECK((seq < paused_seq || seq > resumed_seq));
  // The steps before the one where it paused never ran after the resume;
  // that one and those after it did, and before the resume only in the
  // first process (an attempt killed before its result was written: it
  // then paused at that step after the restart).
  bool after = false;
  for (auto& s : (*op)->steps) {
    after = after || s.name == paused_at;
    bool ran_after_resume = false;
    for (auto& e : read_effects(effects)) {
      if (e.op != id || e.step != s.name)
        continue;
      INFO("step " << s.name << " paused at " << paused_at);
      ran_after_resume = ran_after_resume || e.t_us > resumed_us;
      if (!after)
        CHECK(e.t_us < resumed_us);
      else if (e.t_us < resumed_us)
        CHECK(e.pid == first_pid);
    }
    if (after && s.name != "nap")
      CHECK(ran_after_resume);
  }
  WARN("paused at step " << paused_at);
  std::system(("rm -rf " + dir).c_str());
}
