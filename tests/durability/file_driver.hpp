#pragma once

#include <string>

#include "infra/driver.hpp"

namespace stepwise::test {

/// A driver whose tasks live in the file system, so that they outlive the
/// processes that the durability tests kill: the task on infrastructure
/// `ID` is COMPLETE (outputs `{"by": "monitor"}`) once the file
/// `DIR/done-ID` exists, and IN_PROGRESS before. Every poll appends
/// "<ID> <pid> <IN_PROGRESS|COMPLETE> <wall-clock µs>" to `DIR/polls`.
/// Only `get_task` is served; the other calls fail.
class file_driver : public infra::driver {
public:
  explicit file_driver(std::string dir);
  ~file_driver() override;

  file_driver(const file_driver&) = delete;
  file_driver& operator=(const file_driver&) = delete;

  void create(const infra::create_request& req, infra::callback<infra::accepted> done,
              const stop_token& stop) override;

  void get_task(const std::string& infrastructure_id, const std::string& request_id,
                const infra::deployment_location& loc, infra::callback<infra::task> done) override;

  void remove(const std::string& infrastructure_id, const infra::deployment_location& loc,
              infra::callback<infra::accepted> done, const stop_token& stop) override;

  void find(const std::string& template_text, const std::string& template_type,
            const std::string& instance_name, const infra::deployment_location& loc,
            infra::callback<std::optional<infra::found>> done) override;

private:
  std::string dir_;
  int polls_fd_ = -1;
};

} // namespace stepwise::test
