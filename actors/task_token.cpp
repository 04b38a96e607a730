#include "actors/task_token.hpp"

#include <cstdio>

namespace stepwise {

std::string to_string(const task_token& t) {
  return t.id + "." + std::to_string(t.attempt) + "." + t.nonce;
}

std::string attempt_mark(time_point since, const std::string& step, int32_t run) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since.time_since_epoch());
  // FNV-1a of the step's name: the next step's first attempt may begin
  // within the same millisecond as this one.
  uint32_t h = 2166136261u;
  for (unsigned char c : step)
    h = (h ^ c) * 16777619u;
  // A repair may send the step back within that millisecond too. The
  // first run's mark is as it was before runs were counted: tokens handed
  // out before an upgrade still name their attempt.
  char buf[64];
  auto n =
    std::snprintf(buf, sizeof buf, "%llx-%x-", static_cast<unsigned long long>(ms.count()), h);
  if (run != 0)
    std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "r%x-", static_cast<unsigned>(run));
  return buf;
}

bool names_attempt(const task_token& t, time_point since, const std::string& step, int32_t run) {
  return t.nonce.rfind(attempt_mark(since, step, run), 0) == 0;
}

std::optional<task_token> parse_task_token(const std::string& text) {
  // Operation ids may hold dots: the attempt and nonce are the last parts.
  auto last = text.rfind('.');
  if (last == std::string::npos || last == 0 || last + 1 == text.size())
    return std::nullopt;
  auto mid = text.rfind('.', last - 1);
  if (mid == std::string::npos || mid == 0 || last - mid < 2 || last - mid > 10)
    return std::nullopt;
  task_token out{text.substr(0, mid), 0, text.substr(last + 1)};
  for (auto i = mid + 1; i < last; ++i) {
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
    out.attempt = out.attempt * 10 + (text[i] - '0');
  }
  return out;
}

} // namespace stepwise
