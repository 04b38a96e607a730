#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/clock.hpp"
#include "infra/driver.hpp"

namespace stepwise::test {

/// A driver that passes every call on to another one and records when
/// (on the engine's clock) each `get_task` was made: what a monitor's
/// polls look like from the driver's side.
class poll_log : public infra::driver {
public:
  poll_log(std::shared_ptr<infra::driver> inner, std::shared_ptr<const clock> clk)
    : inner_(std::move(inner)), clk_(std::move(clk)) {
    // nop
  }

  /// Returns the times of the polls so far.
  std::vector<time_point> polls() const {
    std::lock_guard<std::mutex> g{mtx_};
    return polls_;
  }

  /// Waits (at most 10 s of real time) until `n` polls were made.
  bool await_polls(size_t n) const {
    std::unique_lock<std::mutex> g{mtx_};
    return cv_.wait_for(g, std::chrono::seconds(10), [&] { return polls_.size() >= n; });
  }

  void create(const infra::create_request& req, infra::callback<infra::accepted> done,
              const stop_token& stop) override {
    inner_->create(req, std::move(done), stop);
  }

  void get_task(const std::string& infrastructure_id, const std::string& request_id,
                const infra::deployment_location& loc, infra::callback<infra::task> done) override {
    auto at = clk_->now();
    // Counted once the inner driver decided its answer: a test that sees
    // the count may change the cloud without racing this poll.
    inner_->get_task(infrastructure_id, request_id, loc, std::move(done));
    {
      std::lock_guard<std::mutex> g{mtx_};
      polls_.push_back(at);
    }
    cv_.notify_all();
  }

  void remove(const std::string& infrastructure_id, const infra::deployment_location& loc,
              infra::callback<infra::accepted> done, const stop_token& stop) override {
    inner_->remove(infrastructure_id, loc, std::move(done), stop);
  }

  void find(const std::string& template_text, const std::string& template_type,
            const std::string& instance_name, const infra::deployment_location& loc,
            infra::callback<std::optional<infra::found>> done) override {
    inner_->find(template_text, template_type, instance_name, loc, std::move(done));
  }

private:
  std::shared_ptr<infra::driver> inner_;
  std::shared_ptr<const clock> clk_;
  mutable std::mutex mtx_;
  mutable std::condition_variable cv_;
  std::vector<time_point> polls_;
};

} // namespace stepwise::test
