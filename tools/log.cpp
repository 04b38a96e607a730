#include "tools/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "engine/time.hpp"

namespace stepwise::tools {

namespace {

std::atomic<int> current{static_cast<int>(log_level::info)};
std::mutex out_mtx;

const char* name(log_level x) {
  switch (x) {
    case log_level::error:
      return "error";
    case log_level::warn:
      return "warn";
    case log_level::info:
      return "info";
    case log_level::debug:
      return "debug";
  }
  return "?";
}

} // namespace

std::optional<log_level> parse_log_level(std::string_view s) {
  for (auto x : {log_level::error, log_level::warn, log_level::info, log_level::debug})
    if (s == name(x))
      return x;
  return std::nullopt;
}

void set_log_level(log_level x) {
  current = static_cast<int>(x);
}

bool log_enabled(log_level x) {
  return static_cast<int>(x) <= current.load();
}

void log(log_level x, std::string_view text) {
  if (!log_enabled(x))
    return;
  auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
  std::lock_guard<std::mutex> guard{out_mtx};
  std::fprintf(stderr, "%s %-5s %.*s\n", format_time(now).c_str(), name(x),
               static_cast<int>(text.size()), text.data());
  std::fflush(stderr);
}

} // namespace stepwise::tools
