#include "tests/http/serve_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"

namespace stepwise::test {

using steady = std::chrono::steady_clock;

std::string stepwise_binary() {
  auto p = std::getenv("STEPWISE_BIN");
  return p != nullptr ? p : "build/stepwise";
}

child::child(std::vector<std::string> args) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], 2);
    int out = ::open("/dev/null", O_WRONLY);
    ::dup2(out, 1);
    exec_args(std::move(args));
  }
  ::close(fds[1]);
  err_fd = fds[0];
}

child::~child() {
  kill_and_reap(pid);
  if (err_fd >= 0)
    ::close(err_fd);
}

int child::await_port(std::chrono::seconds bound) {
  auto deadline = steady::now() + bound;
  for (;;) {
    for (auto marker : {"listening on http://127.0.0.1:", "listening on https://127.0.0.1:"}) {
      auto pos = err.find(marker);
      if (pos == std::string::npos)
        continue;
      auto start = pos + std::string(marker).size();
      auto end = err.find(' ', start);
      if (end != std::string::npos)
        return std::atoi(err.substr(start, end - start).c_str());
    }
    if (!read_some(err_fd, err, deadline))
      return 0;
  }
}

bool child::await_output(const std::string& text, std::chrono::seconds bound) {
  auto deadline = steady::now() + bound;
  while (err.find(text) == std::string::npos)
    if (!read_some(err_fd, err, deadline))
      return false;
  return true;
}

int child::wait_exit(std::chrono::seconds bound) {
  // Reads what it writes meanwhile: with its stderr pipe full, a server
  // that logs as it drains would block in its logging, and never exit.
  auto deadline = steady::now() + bound;
  while (pid > 0 && steady::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (!read_some(err_fd, err, std::min(deadline, steady::now() + std::chrono::milliseconds(20))))
      std::this_thread::sleep_for(std::chrono::milliseconds(5)); // at its end of file
  }
  return -1;
}

std::string run_cli(const std::string& args) {
  return run_command(stepwise_binary() + " " + args);
}

} // namespace stepwise::test
