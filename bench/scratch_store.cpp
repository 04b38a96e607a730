#include "bench/scratch_store.hpp"

#include <cstdio>

#include <unistd.h>

namespace stepwise::bench {

std::string fresh_sqlite_uri(const std::string& tag, int run) {
  auto path = "/tmp/stepwise-bench-" + std::to_string(::getpid()) + "-" + tag
              + std::to_string(run) + ".db";
  for (auto suffix : {"", "-wal", "-shm"})
    std::remove((path + suffix).c_str());
  return "sqlite:" + path;
}

} // namespace stepwise::bench
