#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "infra/driver.hpp"
#include "engine/workflow.hpp"

namespace stepwise::test {

/// A scriptable `infra::driver` for the gateway tests: answers what the test
/// set and records what it was asked. Thread-safe (HTTP workers call it).
class fake_driver : public infra::driver {
public:
  /// Every call fails with this error while set.
  void fail_with(std::optional<infra::error> e);

  void set_accepted(infra::accepted a);
  void set_task(infra::task t);
  void set_found(std::optional<infra::found> f);

  /// Calls so far, per kind.
  struct counts {
    int create = 0;
    int remove = 0;
    int get_task = 0;
    int find = 0;
  };
  counts calls() const;

  /// The last create request, and the last location and ids of any call.
  infra::create_request last_create() const;
  infra::deployment_location last_location() const;
  std::string last_infrastructure_id() const;
  std::string last_request_id() const;
  std::string last_instance_name() const;
  std::string last_template_type() const;

  // -- infra::driver ----------------------------------------------------------

  // Each answers at once, on the calling thread.
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
  infra::result<infra::accepted> do_create(const infra::create_request& req);
  infra::result<infra::task> do_get_task(const std::string& infrastructure_id,
                                         const std::string& request_id,
                                         const infra::deployment_location& loc);
  infra::result<infra::accepted> do_remove(const std::string& infrastructure_id,
                                           const infra::deployment_location& loc);
  infra::result<std::optional<infra::found>> do_find(const std::string& template_type,
                                                     const std::string& instance_name,
                                                     const infra::deployment_location& loc);

  // The engine's workers call the driver while the test sets and reads it.
  template <class T>
  T locked_read(const T& field) const {
    std::lock_guard<std::mutex> g{mtx_};
    return field;
  }

  template <class T>
  void locked_write(T& field, T value) {
    std::lock_guard<std::mutex> g{mtx_};
    field = std::move(value);
  }

  mutable std::mutex mtx_;
  std::optional<infra::error> error_;
  infra::accepted accepted_{"infra-1", "req-1"};
  infra::task task_;
  std::optional<infra::found> found_;
  counts calls_;
  infra::create_request last_create_;
  infra::deployment_location last_location_;
  std::string last_infrastructure_id_;
  std::string last_request_id_;
  std::string last_instance_name_;
  std::string last_template_type_;
};

/// A stand-in for the built-in `infrastructure_task` monitor workflow: one
/// step that does nothing, and `/deployment_location/properties` secret like
/// the real one.
workflow stand_in_infrastructure_task();

} // namespace stepwise::test
