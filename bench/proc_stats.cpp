#include "bench/proc_stats.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

namespace stepwise::bench {

namespace {

int64_t status_field(const std::string& pid, const std::string& name) {
  std::ifstream in{"/proc/" + pid + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + ":", 0) == 0)
      return std::stoll(line.substr(name.size() + 1));
  return 0;
}

// Fields of /proc/PID/stat after the command name: state is [0], ppid
// [1], utime [11], stime [12], cutime [13], cstime [14].
std::optional<std::vector<long long>> stat_fields(const std::string& pid) {
  std::ifstream in{"/proc/" + pid + "/stat"};
  std::string all;
  if (!std::getline(in, all))
    return std::nullopt;
  auto close = all.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream rest{all.substr(close + 2)};
  std::vector<long long> out;
  std::string f;
  while (rest >> f && out.size() < 15)
    out.push_back(f.size() == 1 && !std::isdigit(static_cast<unsigned char>(f[0])) ? 0
                                                                                   : std::stoll(f));
  if (out.size() < 15)
    return std::nullopt;
  return out;
}

} // namespace

double tree_cpu_seconds(int root) {
  auto hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto me = stat_fields(std::to_string(root));
  if (!me)
    return 0;
  auto ticks = (*me)[11] + (*me)[12] + (*me)[13] + (*me)[14];
  // Processes come and go while we look: errors end the walk, not the run.
  std::error_code ec;
  for (std::filesystem::directory_iterator it{"/proc", ec}, end; !ec && it != end;
       it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
      continue;
    auto f = stat_fields(name);
    if (f && (*f)[1] == root)
      ticks += (*f)[11] + (*f)[12];
  }
  return static_cast<double>(ticks) / hz;
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

int64_t peak_rss_kib() {
  return status_field("self", "VmHWM");
}

int64_t rss_kib() {
  return status_field("self", "VmRSS");
}

int64_t status_of(int pid, const std::string& field) {
  return status_field(pid > 0 ? std::to_string(pid) : std::string("self"), field);
}

bool reset_peak_rss(int pid) {
  std::ofstream out{"/proc/" + (pid > 0 ? std::to_string(pid) : std::string("self"))
                    + "/clear_refs"};
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::map<std::string, double> thread_cpu_seconds(int pid) {
  auto hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto dir = "/proc/" + (pid > 0 ? std::to_string(pid) : std::string("self")) + "/task";
  std::map<std::string, double> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
    std::ifstream comm{it->path() / "comm"};
    std::string name;
    std::getline(comm, name);
    auto f = stat_fields(dir.substr(6) + "/" + it->path().filename().string());
    if (f && !name.empty())
      out[name] += static_cast<double>((*f)[11] + (*f)[12]) / hz;
  }
  return out;
}

double load_average() {
  std::ifstream in{"/proc/loadavg"};
  double one = -1;
  in >> one;
  return one;
}

} // namespace stepwise::bench
