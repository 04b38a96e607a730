#pragma once

#include <cstdint>

namespace stepwise::net {

/// Raises this process's soft limit of open files (RLIMIT_NOFILE) to its
/// hard limit: every HTTP connection (an event stream's, a client's that
/// idles) is a descriptor, and the usual soft limit of 1024 would refuse
/// connections long before memory or CPU run short. Returns the soft
/// limit in force afterwards (0 when it cannot be read).
uint64_t raise_fd_limit();

} // namespace stepwise::net
