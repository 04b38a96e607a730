#include "engine/operation.hpp"

#include <array>

#include "engine/enum_names.hpp"

namespace stepwise {

namespace {

constexpr std::array<std::string_view, 8> op_names{
  "pending", "in_progress", "waiting", "succeeded", "failed", "canceled", "compensating", "paused"};

constexpr std::array<std::string_view, 7> step_names{"pending", "running", "waiting",   "succeeded",
                                                     "failed",  "skipped", "incomplete"};

constexpr std::array<std::string_view, 3> admission_names{"none", "queued", "admitted"};

} // namespace

std::string_view to_string(admission x) {
  return admission_names[static_cast<size_t>(x)];
}

std::optional<admission> parse_admission(std::string_view s) {
  for (size_t i = 0; i < admission_names.size(); ++i)
    if (admission_names[i] == s)
      return static_cast<admission>(i);
  return std::nullopt;
}

const std::string& to_string(op_state x) {
  static const auto names = enum_names(op_names);
  return names[static_cast<size_t>(x)];
}

const std::string& to_string(step_state x) {
  static const auto names = enum_names(step_names);
  return names[static_cast<size_t>(x)];
}

std::optional<op_state> parse_op_state(std::string_view s) {
  for (size_t i = 0; i < op_names.size(); ++i)
    if (op_names[i] == s)
      return static_cast<op_state>(i);
  return std::nullopt;
}

std::optional<step_state> parse_step_state(std::string_view s) {
  for (size_t i = 0; i < step_names.size(); ++i)
    if (step_names[i] == s)
      return static_cast<step_state>(i);
  return std::nullopt;
}

size_t operation::cursor() const {
  size_t i = 0;
  while (i < steps.size() && is_settled(steps[i].state))
    ++i;
  return i;
}

} // namespace stepwise
