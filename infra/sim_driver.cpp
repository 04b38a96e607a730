#include "infra/sim_driver.hpp"

#include <cstdio>

namespace stepwise::infra {

namespace {

/// Returns the string value of property `key`: `"x"` or `{"value": "x"}`.
std::string prop(const boost::json::object& props, std::string_view key) {
  auto v = props.if_contains(key);
  if (v == nullptr)
    return {};
  if (v->is_string())
    return std::string(v->get_string());
  if (v->is_object())
    if (auto inner = v->get_object().if_contains("value"); inner != nullptr && inner->is_string())
      return std::string(inner->get_string());
  return {};
}

} // namespace

sim_driver::sim_driver(sim_config cfg, std::shared_ptr<const stepwise::clock> clk,
                       std::shared_ptr<delayed_calls> later)
  : cfg_(std::move(cfg)), clock_(std::move(clk)), later_(std::move(later)), rng_(cfg_.seed) {
  if (cfg_.max_latency < cfg_.min_latency)
    cfg_.max_latency = cfg_.min_latency;
}

// -- driver methods -----------------------------------------------------------

template <class T>
void sim_driver::answer(callback<T>& done, result<T> res) {
  if (!later_ || cfg_.call_latency.count() <= 0) {
    done(std::move(res));
    return;
  }
  auto shared = std::make_shared<result<T>>(std::move(res));
  later_->at(clock_->now() + cfg_.call_latency,
             [done = std::move(done), shared]() mutable { done(std::move(*shared)); });
}

// The simulated cloud answers at once: there is nothing under way to stop.
void sim_driver::create(const create_request& req, callback<accepted> done, const stop_token&) {
  answer(done, do_create(req));
}

void sim_driver::get_task(const std::string& infrastructure_id, const std::string& request_id,
                          const deployment_location& loc, callback<task> done) {
  answer(done, do_get_task(infrastructure_id, request_id, loc));
}

void sim_driver::remove(const std::string& infrastructure_id, const deployment_location& loc,
                        callback<accepted> done, const stop_token&) {
  answer(done, do_remove(infrastructure_id, loc));
}

void sim_driver::find(const std::string& template_text, const std::string&,
                      const std::string& instance_name, const deployment_location& loc,
                      callback<std::optional<found>> done) {
  answer(done, do_find(template_text, instance_name, loc));
}

// -- the answers --------------------------------------------------------------

result<accepted> sim_driver::do_create(const create_request& req) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (auto err = refuse_call())
    return *err;
  auto tpl = parse_sim_template(req.template_text);
  if (auto err = std::get_if<error>(&tpl))
    return *err;
  if (auto err = refuse_location(req.location))
    return *err;
  auto key = prop(req.system_properties, "requestId");
  if (!key.empty())
    if (auto i = by_request_key_.find(key); i != by_request_key_.end())
      return i->second;
  auto& t = std::get<sim_template>(tpl);
  accepted out{fresh_id("inf-"), fresh_id("req-")};
  sim_infra x;
  x.resource_name = prop(req.system_properties, "resourceName");
  x.location = req.location.name;
  x.create_request = out.request_id;
  x.received = req;
  x.outputs = std::move(t.outputs);
  auto failure = t.fail ? t.fail : draw_failure();
  tasks_.emplace(out.request_id,
                 sim_task{out.infrastructure_id, draw_due(t.latency), std::move(failure)});
  infra_.emplace(out.infrastructure_id, std::move(x));
  if (!key.empty())
    by_request_key_.emplace(std::move(key), out);
  return out;
}

result<task> sim_driver::do_get_task(const std::string& infrastructure_id,
                                     const std::string& request_id,
                                     const deployment_location& loc) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (auto err = refuse_call())
    return *err;
  if (auto err = refuse_location(loc))
    return *err;
  auto x = infra_.find(infrastructure_id);
  if (x == infra_.end() || x->second.location != loc.name)
    return error{error_kind::not_found, "no infrastructure " + infrastructure_id};
  auto t = tasks_.find(request_id);
  if (t == tasks_.end() || t->second.infrastructure_id != infrastructure_id)
    return error{error_kind::request_not_found,
                 "no request " + request_id + " on infrastructure " + infrastructure_id};
  task out;
  out.infrastructure_id = infrastructure_id;
  out.request_id = request_id;
  out.status = status_of(t->second, clock_->now());
  if (out.status == task_status::failed)
    out.failure = t->second.failure;
  else if (out.status == task_status::complete && request_id == x->second.create_request)
    out.outputs = x->second.outputs;
  return out;
}

result<accepted> sim_driver::do_remove(const std::string& infrastructure_id,
                                       const deployment_location& loc) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (auto err = refuse_call())
    return *err;
  if (auto err = refuse_location(loc))
    return *err;
  auto now = clock_->now();
  auto x = infra_.find(infrastructure_id);
  if (x == infra_.end() || x->second.location != loc.name || !live(x->second, now))
    return error{error_kind::not_found, "no infrastructure " + infrastructure_id};
  auto& inf = x->second;
  if (!inf.delete_request.empty()
      && status_of(tasks_.at(inf.delete_request), now) == task_status::in_progress)
    return accepted{infrastructure_id, inf.delete_request};
  // A failed delete may be tried again: a new task.
  accepted out{infrastructure_id, fresh_id("req-")};
  tasks_.emplace(out.request_id,
                 sim_task{infrastructure_id, draw_due(std::nullopt), draw_failure()});
  inf.delete_request = out.request_id;
  return out;
}

result<std::optional<found>> sim_driver::do_find(const std::string& template_text,
                                                 const std::string& instance_name,
                                                 const deployment_location& loc) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (auto err = refuse_call())
    return *err;
  auto tpl = parse_sim_template(template_text);
  if (auto err = std::get_if<error>(&tpl))
    return *err;
  if (auto err = refuse_location(loc))
    return *err;
  auto now = clock_->now();
  // A linear scan: find is rare, and an index by name would cost memory on
  // every create.
  for (auto& [id, x] : infra_) {
    if (x.resource_name != instance_name || x.location != loc.name)
      continue;
    if (status_of(tasks_.at(x.create_request), now) == task_status::complete && live(x, now))
      return std::optional<found>{found{id, x.outputs}};
  }
  return std::optional<found>{};
}

// -- controls for tests and demos ---------------------------------------------

void sim_driver::inject(error_kind kind, int32_t calls) {
  std::lock_guard<std::mutex> guard{mtx_};
  injected_kind_ = kind;
  injected_calls_ = calls;
}

void sim_driver::set_reachable(const std::string& location, bool reachable) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (reachable)
    cfg_.unreachable.erase(location);
  else
    cfg_.unreachable.insert(location);
}

bool sim_driver::exists(const std::string& infrastructure_id) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto now = clock_->now();
  auto x = infra_.find(infrastructure_id);
  return x != infra_.end()
         && status_of(tasks_.at(x->second.create_request), now) == task_status::complete
         && live(x->second, now);
}

size_t sim_driver::creates() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return infra_.size();
}

std::optional<create_request> sim_driver::received_create(
  const std::string& infrastructure_id) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = infra_.find(infrastructure_id);
  if (i == infra_.end())
    return std::nullopt;
  return i->second.received;
}

// -- helpers ------------------------------------------------------------------

std::optional<error> sim_driver::refuse_call() {
  // Injected and random errors are decided once per call, before anything
  // else: a call refused this way changes nothing.
  if (injected_calls_ > 0) {
    --injected_calls_;
    return error{injected_kind_, "simulated " + std::string(to_string(injected_kind_)) + " error"};
  }
  if (cfg_.temporary_error_rate > 0.0
      && std::uniform_real_distribution<double>{0.0, 1.0}(rng_) < cfg_.temporary_error_rate)
    return error{error_kind::temporary, "simulated temporary error; try again later"};
  return std::nullopt;
}

std::optional<error> sim_driver::refuse_location(const deployment_location& loc) const {
  // Location names only: properties may hold credentials.
  if (loc.name.empty())
    return error{error_kind::unreachable_location, "deployment location has no name"};
  if (cfg_.locations.count(loc.name) == 0) {
    std::string known;
    for (auto& name : cfg_.locations)
      known += (known.empty() ? "" : ", ") + name;
    return error{error_kind::unreachable_location,
                 "deployment location " + loc.name
                   + " is not served by the simulated cloud (locations: "
                   + (known.empty() ? std::string("none") : known) + ")"};
  }
  if (cfg_.unreachable.count(loc.name) != 0)
    return error{error_kind::unreachable_location,
                 "deployment location " + loc.name + " cannot be reached"};
  return std::nullopt;
}

std::string sim_driver::fresh_id(const char* prefix) {
  for (;;) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%s%016llx", prefix, static_cast<unsigned long long>(rng_()));
    std::string id{buf};
    if (infra_.count(id) == 0 && tasks_.count(id) == 0)
      return id;
  }
}

time_point sim_driver::draw_due(const std::optional<duration>& latency) {
  if (latency)
    return clock_->now() + *latency;
  std::uniform_int_distribution<int64_t> pick{cfg_.min_latency.count(), cfg_.max_latency.count()};
  return clock_->now() + duration{pick(rng_)};
}

std::optional<failure_details> sim_driver::draw_failure() {
  std::uniform_real_distribution<double> unit{0.0, 1.0};
  if (cfg_.failure_rate <= 0.0 || unit(rng_) >= cfg_.failure_rate)
    return std::nullopt;
  if (unit(rng_) < 0.5)
    return failure_details{failure_code::insufficient_capacity, "simulated: not enough capacity"};
  return failure_details{failure_code::infrastructure_error,
                         "simulated: the infrastructure failed"};
}

task_status sim_driver::status_of(const sim_task& t, time_point now) const {
  if (now < t.due)
    return task_status::in_progress;
  return t.failure ? task_status::failed : task_status::complete;
}

bool sim_driver::live(const sim_infra& x, time_point now) const {
  return x.delete_request.empty()
         || status_of(tasks_.at(x.delete_request), now) != task_status::complete;
}

} // namespace stepwise::infra
