#include "tests/durability/piped_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/durability/child_process.hpp"

namespace stepwise::test {

piped_child::piped_child(const std::vector<std::string>& args) {
  // A child killed while the test writes to it must not kill the test.
  ::signal(SIGPIPE, SIG_IGN);
  int to_child[2];
  int from_child[2];
  // Close-on-exec: a later child must not hold this one's stdin open.
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
    return;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    ::close(to_child[1]);
    ::close(from_child[0]);
    exec_or_exit(args);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  in_fd_ = to_child[1];
  out_fd_ = from_child[0];
}

piped_child::~piped_child() {
  if (pid_ > 0)
    kill();
  if (out_fd_ >= 0)
    ::close(out_fd_);
}

void piped_child::tell(const std::string& line) {
  auto text = line + "\n";
  auto n = ::write(in_fd_, text.data(), text.size());
  (void)n;
}

std::string piped_child::answer(std::chrono::seconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (auto eol = buffered_.find('\n'); eol != std::string::npos; eol = buffered_.find('\n')) {
      auto line = buffered_.substr(0, eol);
      buffered_.erase(0, eol + 1);
      if (line.rfind("> ", 0) == 0)
        return line.substr(2);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return "";
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      return "";
    char buf[4096];
    auto n = ::read(out_fd_, buf, sizeof(buf));
    if (n <= 0)
      return ""; // the child is gone
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

std::string piped_child::ask(const std::string& line, std::chrono::seconds limit) {
  tell(line);
  return answer(limit);
}

int piped_child::kill() {
  ::kill(pid_, SIGKILL);
  return wait();
}

int piped_child::wait() {
  if (in_fd_ >= 0)
    ::close(in_fd_);
  in_fd_ = -1;
  int status = 0;
  if (pid_ > 0)
    ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

} // namespace stepwise::test
