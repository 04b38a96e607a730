#include "infra/driver.hpp"

#include <array>
#include <utility>

namespace stepwise::infra {

namespace {

constexpr std::array<std::pair<task_status, std::string_view>, 3> status_names{{
  {task_status::in_progress, "IN_PROGRESS"},
  {task_status::complete, "COMPLETE"},
  {task_status::failed, "FAILED"},
}};

constexpr std::array<std::pair<failure_code, std::string_view>, 5> code_names{{
  {failure_code::resource_already_exists, "RESOURCE_ALREADY_EXISTS"},
  {failure_code::resource_not_found, "RESOURCE_NOT_FOUND"},
  {failure_code::infrastructure_error, "INFRASTRUCTURE_ERROR"},
  {failure_code::insufficient_capacity, "INSUFFICIENT_CAPACITY"},
  {failure_code::internal_error, "INTERNAL_ERROR"},
}};

template <class Table, class T>
std::string_view name_of(const Table& table, T x) {
  for (auto& [value, name] : table)
    if (value == x)
      return name;
  return "UNKNOWN";
}

template <class T, class Table>
std::optional<T> value_of(const Table& table, std::string_view s) {
  for (auto& [value, name] : table)
    if (name == s)
      return value;
  return std::nullopt;
}

} // namespace

std::string_view to_string(error_kind x) {
  switch (x) {
    case error_kind::invalid_template:
      return "invalid_template";
    case error_kind::not_found:
      return "not_found";
    case error_kind::request_not_found:
      return "request_not_found";
    case error_kind::temporary:
      return "temporary";
    case error_kind::unreachable_location:
      return "unreachable_location";
    case error_kind::infrastructure_error:
      return "infrastructure_error";
  }
  return "infrastructure_error";
}

std::string_view to_string(task_status x) {
  return name_of(status_names, x);
}

std::optional<task_status> parse_task_status(std::string_view s) {
  return value_of<task_status>(status_names, s);
}

std::string_view to_string(failure_code x) {
  return name_of(code_names, x);
}

std::optional<failure_code> parse_failure_code(std::string_view s) {
  return value_of<failure_code>(code_names, s);
}

} // namespace stepwise::infra
