#include "tests/durability/child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

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

} // namespace stepwise::test
