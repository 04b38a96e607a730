#include "actors/store_health.hpp"

#include <cstdio>

#include "engine/errc.hpp"

namespace stepwise {

namespace {

std::string seconds_text(duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

} // namespace

store_health::store_health(log_sink log, std::chrono::seconds remind_every)
  : log_(std::move(log)), remind_every_(remind_every) {
  // nop
}

void store_health::failed(const std::string& what, const caf::error& err, const std::string& retry,
                          duration now) {
  auto why = message_of(err);
  std::string line;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    ++failures_;
    if (fault_.empty()) {
      since_ = now;
      reminded_ = now;
      line = "store fault: " + what + " failed, " + retry + ": " + why;
    } else if (now - reminded_ >= remind_every_) {
      reminded_ = now;
      line = "store fault for " + seconds_text(now - since_) + " (" + std::to_string(failures_)
             + " failed calls): " + what + " failed, " + retry + ": " + why;
    }
    fault_ = why;
  }
  if (!line.empty())
    write_log(log_, log_level::error, line);
}

void store_health::answered(duration now) {
  std::string line;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (fault_.empty())
      return;
    line = "store answers again after " + seconds_text(now - since_) + " ("
           + std::to_string(failures_) + " failed calls)";
    fault_.clear();
    failures_ = 0;
  }
  write_log(log_, log_level::info, line);
}

std::string store_health::fault() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return fault_;
}

} // namespace stepwise
