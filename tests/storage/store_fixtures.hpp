#pragma once

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/store.hpp"

/// Builders and checks shared by the store tests. Written against the
/// `store` interface only, so that every backend runs the same tests.
namespace stepwise::test {

/// A fixed point in time (2026-11-22T07:40:00Z) plus `us` microseconds;
/// odd microseconds catch a backend that rounds to milliseconds.
inline time_point at(int64_t us) {
  return from_micros(1'795'333'200'000'000 + us);
}

/// Returns a pending operation of workflow `wf` created at `at(created_us)`.
inline operation make_op(const std::string& id, int64_t created_us = 0,
                         const std::string& wf = "provision_runtime") {
  operation op;
  op.id = id;
  op.workflow = wf;
  op.workflow_version = 3;
  op.state = op_state::pending;
  op.input = std::make_shared<const boost::json::object>(boost::json::object{{"name", id}});
  op.created_at = at(created_us);
  op.updated_at = op.created_at;
  op.revision = 1;
  op.steps.push_back(
    {"allocate", 10, step_state::pending, 0, std::nullopt, std::nullopt, std::nullopt, 0, ""});
  return op;
}

/// Returns an event of `op_id`.
inline event make_event(const std::string& op_id, event_type type, int64_t time_us = 0,
                        const std::string& step = {}) {
  event ev;
  ev.time = at(time_us);
  ev.operation_id = op_id;
  ev.type = type;
  ev.step = step;
  return ev;
}

inline checkpoint create(const operation& op, std::vector<event> events = {}) {
  return {checkpoint::kind::create, std::make_shared<const operation>(op), std::move(events)};
}

/// An update of `op` (whose revision the caller already advanced).
inline checkpoint update(const operation& op, std::vector<event> events = {}) {
  return {checkpoint::kind::update, std::make_shared<const operation>(op), std::move(events)};
}

/// Returns `op` advanced by one write, as the engine does before an update.
inline operation next(operation op, op_state state, int64_t updated_us) {
  op.state = state;
  op.updated_at = at(updated_us);
  op.revision += 1;
  return op;
}

/// Commits `batch` and requires success.
inline commit_result commit_ok(store& st, const std::vector<checkpoint>& batch) {
  auto res = st.commit(batch);
  if (!res)
    FAIL("commit failed: " << message_of(res.error()));
  REQUIRE(res->status.size() == batch.size());
  return std::move(*res);
}

/// Loads `id` and requires that it exists.
inline operation load_ok(store& st, const std::string& id) {
  auto res = st.load(id);
  if (!res)
    FAIL("load failed: " << message_of(res.error()));
  if (!*res)
    FAIL("operation " << id << " is missing");
  return std::move(**res);
}

/// Requires that `id` does not exist.
inline void require_absent(store& st, const std::string& id) {
  auto res = st.load(id);
  if (!res)
    FAIL("load failed: " << message_of(res.error()));
  CHECK_FALSE(res->has_value());
}

/// Returns all events of the log and requires success.
inline std::vector<event> all_events(store& st) {
  auto res = st.events_after(0, 1'000'000);
  if (!res)
    FAIL("events_after failed: " << message_of(res.error()));
  return std::move(*res);
}

inline int64_t last_seq_ok(store& st) {
  auto res = st.last_seq();
  if (!res)
    FAIL("last_seq failed: " << message_of(res.error()));
  return *res;
}

/// Returns the ids of `ops`, in order.
inline std::vector<std::string> ids_of(const std::vector<operation>& ops) {
  std::vector<std::string> out;
  for (auto& op : ops)
    out.push_back(op.id);
  return out;
}

/// Checks that two operations agree in every stored field.
void check_same(const operation& got, const operation& want);

/// Checks that two events agree in every field (seq included).
void check_same(const event& got, const event& want);

} // namespace stepwise::test
