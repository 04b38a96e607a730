#include "bench/child_process.hpp"

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

extern char** environ;

namespace stepwise::bench {

std::optional<child_process> start_child(const std::vector<std::string>& argv,
                                         const std::string& log, std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // The bench may block signals in its threads; the child starts with none
  // blocked so that SIGTERM stops it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  auto rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    err = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return std::nullopt;
  }
  return child_process{pid, log};
}

bool child_exited(child_process& c) {
  if (c.pid <= 0)
    return true;
  int status = 0;
  if (::waitpid(c.pid, &status, WNOHANG) != c.pid)
    return false;
  c.pid = -1;
  return true;
}

bool stop_child(child_process& c, double grace_s) {
  if (c.pid <= 0)
    return true;
  ::kill(c.pid, SIGTERM);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (std::chrono::steady_clock::now() < until) {
    if (child_exited(c))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(c.pid, SIGKILL);
  ::waitpid(c.pid, nullptr, 0);
  c.pid = -1;
  return false;
}

int free_port() {
  auto fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0
      && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

bool wait_ready(const std::string& url, const std::string& path, double limit_s, child_process* c) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  httplib::Client cli{url};
  cli.set_connection_timeout(1, 0);
  cli.set_read_timeout(2, 0);
  while (std::chrono::steady_clock::now() < until) {
    if (auto r = cli.Get(path); r && r->status == 200)
      return true;
    if (c != nullptr && child_exited(*c))
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string self_exe() {
  char buf[4096];
  auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace stepwise::bench
