#include "actors/task_token.hpp"

namespace stepwise {

std::string to_string(const task_token& t) {
  return t.id + "." + std::to_string(t.attempt) + "." + t.nonce;
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
