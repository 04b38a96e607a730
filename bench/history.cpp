#include "bench/history.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/errc.hpp"
#include "engine/time.hpp"

namespace stepwise::bench {

namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

constexpr size_t batch_size = 1000;
constexpr const char* step_names[] = {"s1", "s2", "s3", "s4", "s5"};

event make_event(const operation& op, event_type type, time_point at, const std::string& step) {
  event e;
  e.time = at;
  e.operation_id = op.id;
  e.type = type;
  e.step = step;
  if (!step.empty())
    e.attempt = 1;
  return e;
}

/// Operation `i` of the history, ended, with its twelve events.
checkpoint ended(size_t i, time_point now) {
  auto op = std::make_shared<operation>();
  op->id = "hist-" + std::to_string(i);
  op->workflow = i % 10000 == 7 ? "demo" : "bench_steps";
  op->workflow_version = 1;
  op->state = i % 100 == 42 ? op_state::failed : op_state::succeeded;
  op->input = std::make_shared<const boost::json::object>(boost::json::object{{"n", i}});
  // Spread over 30 days, oldest first, a minute each at most.
  op->created_at = now - hours(24 * 30) + milliseconds(static_cast<int64_t>(i % 2'592'000) * 1000);
  op->updated_at = op->created_at + milliseconds(40);
  op->revision = 7;
  // Labels as provisioning sets them: 1,000 runtimes (1,000 operations each
  // at 1,000,000), 8 locations, a tenant one in 10,000 has; a key one in 10
  // has.
  op->labels = {{"runtime", "rt-" + std::to_string(i % 1000)},
                {"location", "dc" + std::to_string(i % 8)}};
  if (i % 10000 == 7)
    op->labels["tenant"] = "t-7";
  if (i % 10 == 3)
    op->idempotency_key = "hist-key-" + std::to_string(i);
  std::vector<event> evs{make_event(*op, event_type::operation_created, op->created_at, "")};
  for (auto* name : step_names) {
    step_record s;
    s.name = name;
    s.weight = 1;
    s.state = step_state::succeeded;
    s.attempts = 1;
    s.first_attempt_at = s.last_attempt_at = op->created_at;
    s.duration_ms = 1;
    op->steps.push_back(s);
    evs.push_back(make_event(*op, event_type::step_started, op->created_at, name));
    evs.push_back(make_event(*op, event_type::step_succeeded, op->created_at, name));
  }
  evs.push_back(make_event(*op,
                           op->state == op_state::failed ? event_type::operation_failed
                                                         : event_type::operation_succeeded,
                           op->updated_at, ""));
  return {checkpoint::kind::create, std::move(op), std::move(evs)};
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

caf::error prefill(store& st, size_t n) {
  auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
  std::vector<checkpoint> batch;
  for (size_t i = 0; i < n; i += batch_size) {
    batch.clear();
    for (size_t k = i; k < std::min(n, i + batch_size); ++k) {
      batch.push_back(ended(k, now));
      batch.back().prepared = st.prepare(batch.back());
    }
    auto res = st.commit(batch);
    if (!res)
      return make_error(errc::store_failure, "prefilling the history at operation "
                                               + std::to_string(i) + ": "
                                               + message_of(res.error()));
  }
  return caf::none;
}

boost::json::object list_timings(engine& eng, size_t prefilled) {
  auto times = [](auto&& read) {
    std::vector<double> ms;
    for (int i = 0; i < 20; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      ms.push_back(read() ? ms_since(t0) : -1.0);
    }
    std::sort(ms.begin(), ms.end());
    return boost::json::object{{"p50", ms[ms.size() / 2]}, {"max", ms.back()}};
  };
  auto timed = [&](list_filter f) { return times([&] { return static_cast<bool>(eng.list(f)); }); };
  list_filter first;
  list_filter by_state;
  by_state.state = op_state::failed;
  list_filter by_workflow;
  by_workflow.workflow = "demo";
  list_filter by_runtime;
  by_runtime.labels = {{"runtime", "rt-7"}};
  list_filter by_two = by_runtime;
  by_two.labels.emplace_back("location", "dc7");
  list_filter by_tenant;
  by_tenant.labels = {{"tenant", "t-7"}};
  // A day from the middle of the history (operation i was created i
  // seconds after its start, 30 days ago).
  auto now = std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
  auto mid_time = now - hours(24 * 30) + std::chrono::seconds(static_cast<int64_t>(prefilled / 2));
  list_filter by_day;
  by_day.created_after = mid_time;
  by_day.created_before = mid_time + hours(24);
  list_filter runtime_day = by_day;
  runtime_day.labels = by_runtime.labels;
  list_filter by_key;
  by_key.idempotency_key = "hist-key-" + std::to_string(prefilled / 2 / 10 * 10 + 3);
  // The events of one operation amid everyone's (the timeline route).
  auto mid = "hist-" + std::to_string(prefilled / 2);
  return {{"first_page", timed(first)},
          {"state_failed", timed(by_state)},
          {"workflow_demo", timed(by_workflow)},
          {"label_runtime", timed(by_runtime)},
          {"labels_runtime_location", timed(by_two)},
          {"label_tenant", timed(by_tenant)},
          {"created_one_day", timed(by_day)},
          {"label_runtime_one_day", timed(runtime_day)},
          {"idempotency_key", timed(by_key)},
          {"operation_events",
           times([&] { return static_cast<bool>(eng.operation_events(mid, 0, 1000)); })}};
}

} // namespace stepwise::bench
