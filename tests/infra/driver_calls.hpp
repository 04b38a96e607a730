#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "infra/driver.hpp"

/// Driver calls that wait for their answer, for tests (the driver
/// interface is asynchronous).
namespace stepwise::test {

inline constexpr auto driver_wait = std::chrono::seconds(30);

inline infra::result<infra::accepted> create_now(infra::driver& d,
                                                 const infra::create_request& req) {
  return infra::wait_for<infra::accepted>(
    [&](infra::callback<infra::accepted> cb) { d.create(req, std::move(cb), {}); }, driver_wait);
}

inline infra::result<infra::task> get_task_now(infra::driver& d, const std::string& infra_id,
                                               const std::string& request_id,
                                               const infra::deployment_location& loc) {
  return infra::wait_for<infra::task>(
    [&](infra::callback<infra::task> cb) { d.get_task(infra_id, request_id, loc, std::move(cb)); },
    driver_wait);
}

inline infra::result<infra::accepted> remove_now(infra::driver& d, const std::string& infra_id,
                                                 const infra::deployment_location& loc) {
  return infra::wait_for<infra::accepted>(
    [&](infra::callback<infra::accepted> cb) { d.remove(infra_id, loc, std::move(cb), {}); },
    driver_wait);
}

inline infra::result<std::optional<infra::found>> find_now(infra::driver& d,
                                                           const std::string& template_text,
                                                           const std::string& template_type,
                                                           const std::string& instance_name,
                                                           const infra::deployment_location& loc) {
  return infra::wait_for<std::optional<infra::found>>(
    [&](infra::callback<std::optional<infra::found>> cb) {
      d.find(template_text, template_type, instance_name, loc, std::move(cb));
    },
    driver_wait);
}

} // namespace stepwise::test
