#include "tests/http/fake_driver.hpp"

#include "engine/step.hpp"

namespace stepwise::test {

void fake_driver::fail_with(std::optional<infra::error> e) {
  locked_write(error_, std::move(e));
}

void fake_driver::set_accepted(infra::accepted a) {
  locked_write(accepted_, std::move(a));
}

void fake_driver::set_task(infra::task t) {
  locked_write(task_, std::move(t));
}

void fake_driver::set_found(std::optional<infra::found> f) {
  locked_write(found_, std::move(f));
}

fake_driver::counts fake_driver::calls() const {
  return locked_read(calls_);
}

infra::create_request fake_driver::last_create() const {
  return locked_read(last_create_);
}

infra::deployment_location fake_driver::last_location() const {
  return locked_read(last_location_);
}

std::string fake_driver::last_infrastructure_id() const {
  return locked_read(last_infrastructure_id_);
}

std::string fake_driver::last_request_id() const {
  return locked_read(last_request_id_);
}

std::string fake_driver::last_instance_name() const {
  return locked_read(last_instance_name_);
}

std::string fake_driver::last_template_type() const {
  return locked_read(last_template_type_);
}

void fake_driver::create(const infra::create_request& req, infra::callback<infra::accepted> done,
                         const stop_token&) {
  done(do_create(req));
}

void fake_driver::get_task(const std::string& infrastructure_id, const std::string& request_id,
                           const infra::deployment_location& loc,
                           infra::callback<infra::task> done) {
  done(do_get_task(infrastructure_id, request_id, loc));
}

void fake_driver::remove(const std::string& infrastructure_id,
                         const infra::deployment_location& loc,
                         infra::callback<infra::accepted> done, const stop_token&) {
  done(do_remove(infrastructure_id, loc));
}

void fake_driver::find(const std::string&, const std::string& template_type,
                       const std::string& instance_name, const infra::deployment_location& loc,
                       infra::callback<std::optional<infra::found>> done) {
  done(do_find(template_type, instance_name, loc));
}

infra::result<infra::accepted> fake_driver::do_create(const infra::create_request& req) {
  std::lock_guard<std::mutex> g{mtx_};
  ++calls_.create;
  last_create_ = req;
  last_location_ = req.location;
  if (error_)
    return *error_;
  return accepted_;
}

infra::result<infra::task> fake_driver::do_get_task(const std::string& infrastructure_id,
                                                    const std::string& request_id,
                                                    const infra::deployment_location& loc) {
  std::lock_guard<std::mutex> g{mtx_};
  ++calls_.get_task;
  last_infrastructure_id_ = infrastructure_id;
  last_request_id_ = request_id;
  last_location_ = loc;
  if (error_)
    return *error_;
  return task_;
}

infra::result<infra::accepted> fake_driver::do_remove(const std::string& infrastructure_id,
                                                      const infra::deployment_location& loc) {
  std::lock_guard<std::mutex> g{mtx_};
  ++calls_.remove;
  last_infrastructure_id_ = infrastructure_id;
  last_location_ = loc;
  if (error_)
    return *error_;
  return accepted_;
}

infra::result<std::optional<infra::found>> fake_driver::do_find(
  const std::string& template_type, const std::string& instance_name,
  const infra::deployment_location& loc) {
  std::lock_guard<std::mutex> g{mtx_};
  ++calls_.find;
  last_instance_name_ = instance_name;
  last_template_type_ = template_type;
  last_location_ = loc;
  if (error_)
    return *error_;
  return found_;
}

workflow stand_in_infrastructure_task() {
  workflow wf("infrastructure_task", 1);
  wf.step(1, make_step("monitor", [](step_context&) { return done(); }))
    .secret("/deployment_location/properties");
  return wf;
}

} // namespace stepwise::test
