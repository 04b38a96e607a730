#include "net/fd_limit.hpp"

#include <sys/resource.h>

namespace stepwise::net {

uint64_t raise_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
    return 0;
  if (lim.rlim_cur < lim.rlim_max) {
    auto wanted = lim;
    wanted.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &wanted) == 0)
      lim = wanted;
  }
  return static_cast<uint64_t>(lim.rlim_cur);
}

} // namespace stepwise::net
