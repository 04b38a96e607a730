#include "http/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace stepwise::http {

namespace {

// Returns a `Vm...:   1234 kB` field of /proc/self/status in bytes, or -1.
double status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0)
      return std::atof(line.c_str() + field.size() + 1) * 1024.0;
  return -1;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

// Boot time plus the process's start in clock ticks since boot.
double start_time_seconds() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  // Fields after the command name start at field 3; starttime is field 22.
  for (int i = 3; i <= 22 && fields >> field; ++i)
    continue;
  std::ifstream boot("/proc/stat");
  std::string line;
  while (std::getline(boot, line))
    if (line.rfind("btime ", 0) == 0)
      return std::atof(line.c_str() + 6)
             + std::atof(field.c_str()) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return -1;
}

} // namespace

void render_process_metrics(prometheus_writer& out) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  out.family("process_cpu_seconds_total", "counter",
             "Total user and system CPU time spent in seconds.");
  out.sample("process_cpu_seconds_total", {}, secs(ru.ru_utime) + secs(ru.ru_stime));
  out.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  out.sample("process_resident_memory_bytes", {}, status_bytes("VmRSS"));
  out.family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
  out.sample("process_virtual_memory_bytes", {}, status_bytes("VmSize"));
  out.family("process_open_fds", "gauge", "Number of open file descriptors.");
  out.sample("process_open_fds", {}, open_fds());
  out.family("process_start_time_seconds", "gauge",
             "Start time of the process since the Unix epoch in seconds.");
  out.sample("process_start_time_seconds", {}, start_time_seconds());
  out.family("stepwise_process_peak_resident_memory_bytes", "gauge",
             "Peak resident memory size in bytes (VmHWM).");
  out.sample("stepwise_process_peak_resident_memory_bytes", {}, status_bytes("VmHWM"));
}

} // namespace stepwise::http
