#include "bench/proc_stats.hpp"

#include <fstream>
#include <string>

#include <sys/resource.h>

namespace stepwise::bench {

namespace {

int64_t status_field(const std::string& name) {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + ":", 0) == 0)
      return std::stoll(line.substr(name.size() + 1));
  return 0;
}

} // namespace

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

int64_t peak_rss_kib() {
  return status_field("VmHWM");
}

int64_t rss_kib() {
  return status_field("VmRSS");
}

} // namespace stepwise::bench
