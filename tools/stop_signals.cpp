#include "tools/stop_signals.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <unistd.h>

#include "engine/errc.hpp"

namespace stepwise::tools {

namespace {

// Read by the handler: plain globals, as only they are safe there.
int write_end = -1;
int read_end = -1;
std::atomic<bool> hard{false};
struct sigaction before[3];
constexpr int handled[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_signal(int sig) {
  if (sig != SIGHUP && hard.load())
    ::_exit(1);
  auto saved = errno;
  auto byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] auto n = ::write(write_end, &byte, 1);
  errno = saved;
}

} // namespace

caf::expected<std::unique_ptr<stop_signals>> stop_signals::install() {
  if (write_end >= 0)
    return make_error(errc::invalid_state, "the server's signal handlers are already installed");
  int fds[2];
  if (::pipe(fds) != 0)
    return make_error(errc::invalid_state, std::string("signal pipe: ") + std::strerror(errno));
  read_end = fds[0];
  write_end = fds[1];
  hard = false;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i)
    sigaction(handled[i], &sa, &before[i]);
  // Undo a mask an older caller may have set (they are handled now).
  sigset_t set;
  sigemptyset(&set);
  for (int sig : handled)
    sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  return std::unique_ptr<stop_signals>{new stop_signals};
}

stop_signals::~stop_signals() {
  for (int i = 0; i < 3; ++i)
    sigaction(handled[i], &before[i], nullptr);
  ::close(read_end);
  ::close(write_end);
  read_end = write_end = -1;
}

int stop_signals::next() {
  unsigned char byte = 0;
  for (;;) {
    auto n = ::read(read_end, &byte, 1);
    if (n == 1)
      return byte;
    if (n < 0 && errno != EINTR)
      return SIGTERM;
  }
}

void stop_signals::stop_hard_on_next() {
  hard = true;
}

} // namespace stepwise::tools
