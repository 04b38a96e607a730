#include "bench/scratch_store.hpp"

#include <cstdio>

#include <unistd.h>

namespace stepwise::bench {

namespace {

const std::string prefix = "sqlite:/tmp/stepwise-bench-";

void remove_files(const std::string& path) {
  for (auto suffix : {"", "-wal", "-shm"})
    std::remove((path + suffix).c_str());
}

} // namespace

std::string fresh_sqlite_uri(const std::string& tag, int run) {
  auto uri = prefix + std::to_string(::getpid()) + "-" + tag + std::to_string(run) + ".db";
  remove_files(uri.substr(7));
  return uri;
}

void remove_scratch(const std::string& uri) {
  if (uri.rfind(prefix, 0) == 0)
    remove_files(uri.substr(7));
}

} // namespace stepwise::bench
