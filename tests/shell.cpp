#include "tests/shell.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>

namespace stepwise::test {

temp_dir::temp_dir() {
  char tmpl[] = "/tmp/stepwise-test-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  path = tmpl;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

int reap(pid_t& pid, std::chrono::seconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (pid > 0 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

void kill_and_reap(pid_t& pid) {
  if (pid <= 0)
    return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

void exec_args(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

std::string run_command(const std::string& command) {
  std::string out;
  auto pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    out.append(buf, n);
  ::pclose(pipe);
  return out;
}

} // namespace stepwise::test
