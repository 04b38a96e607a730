#include "tests/durability/child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <random>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/errc.hpp"

namespace stepwise::test {

void exec_or_exit(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

pid_t spawn(const std::vector<std::string>& args) {
  pid_t pid = ::fork();
  if (pid == 0)
    exec_or_exit(args);
  return pid;
}

int reap(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

std::string run_captured(const std::string& command) {
  std::string out;
  auto pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr)
    return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    out.append(buf, n);
  ::pclose(pipe);
  return out;
}

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in{path};
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty())
      out.push_back(l);
  return out;
}

std::vector<effect_line> read_effects(const std::string& path) {
  std::vector<effect_line> out;
  for (auto& l : lines(path)) {
    std::istringstream in{l};
    effect_line e;
    in >> e.op >> e.step >> e.attempt >> e.pid >> e.t_us;
    out.push_back(e);
  }
  return out;
}

std::string env_or_empty(const char* name) {
  auto value = std::getenv(name);
  return value ? value : "";
}

int crash_cycles(int fallback) {
  auto env = std::getenv("STEPWISE_CRASH_CYCLES");
  return env ? std::atoi(env) : fallback;
}

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

std::vector<int> kill_at_random(const std::vector<std::string>& args, const std::string& acked,
                                int runs) {
  std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> kill_after_ms{5, 250};
  std::vector<int> out;
  for (int i = 0; i < runs; ++i) {
    auto before = lines(acked).size();
    auto pid = spawn(args);
    if (pid <= 0) {
      out.push_back(-1);
      continue;
    }
    if (i % 2 == 0) {
      auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (lines(acked).size() == before && std::chrono::steady_clock::now() < limit)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    ::kill(pid, SIGKILL);
    out.push_back(reap(pid));
  }
  return out;
}

bool exited_zero(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool killed_or_clean(int status) {
  return WIFSIGNALED(status) || exited_zero(status);
}

event_log read_event_log(store& st) {
  event_log out;
  auto events = st.events_after(0, 100'000'000);
  if (!events) {
    out.error = message_of(events.error());
    return out;
  }
  out.events = std::move(*events);
  int64_t expect = 1;
  for (auto& e : out.events) {
    if (e.seq != expect && out.first_gap == 0)
      out.first_gap = expect;
    expect = e.seq + 1;
    if (is_terminal(e.type))
      out.terminal[e.operation_id] += 1;
  }
  return out;
}

} // namespace stepwise::test
