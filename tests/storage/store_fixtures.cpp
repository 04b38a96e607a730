#include "tests/storage/store_fixtures.hpp"

namespace stepwise::test {

namespace {

// Catch prints strings but not times: compare micros.
std::optional<int64_t> us(const std::optional<time_point>& t) {
  if (t)
    return to_micros(*t);
  return std::nullopt;
}

} // namespace

void check_same(const operation& got, const operation& want) {
  INFO("operation " << want.id);
  CHECK(got.id == want.id);
  CHECK(got.workflow == want.workflow);
  CHECK(got.workflow_version == want.workflow_version);
  CHECK(to_string(got.state) == to_string(want.state));
  REQUIRE(got.input != nullptr);
  // JSON compares as a value: a backend (jsonb) may reorder object keys.
  if (want.input)
    CHECK(*got.input == *want.input);
  else
    CHECK(got.input->empty());
  CHECK(got.data == want.data);
  CHECK(got.error == want.error);
  CHECK(to_micros(got.created_at) == to_micros(want.created_at));
  CHECK(to_micros(got.updated_at) == to_micros(want.updated_at));
  CHECK(us(got.deadline) == us(want.deadline));
  CHECK(got.idempotency_key == want.idempotency_key);
  CHECK(got.labels == want.labels);
  CHECK(got.request_hash == want.request_hash);
  CHECK(got.revision == want.revision);
  CHECK(us(got.wake_at) == us(want.wake_at));
  REQUIRE(got.steps.size() == want.steps.size());
  for (size_t i = 0; i < want.steps.size(); ++i) {
    auto& g = got.steps[i];
    auto& w = want.steps[i];
    INFO("step " << i);
    CHECK(g.name == w.name);
    CHECK(g.weight == w.weight);
    CHECK(to_string(g.state) == to_string(w.state));
    CHECK(g.attempts == w.attempts);
    CHECK(us(g.first_attempt_at) == us(w.first_attempt_at));
    CHECK(us(g.last_attempt_at) == us(w.last_attempt_at));
    CHECK(us(g.next_attempt_at) == us(w.next_attempt_at));
    CHECK(g.duration_ms == w.duration_ms);
    CHECK(g.last_error == w.last_error);
  }
}

void check_same(const event& got, const event& want) {
  INFO("event seq " << want.seq);
  CHECK(got.seq == want.seq);
  CHECK(to_micros(got.time) == to_micros(want.time));
  CHECK(got.operation_id == want.operation_id);
  CHECK(to_string(got.type) == to_string(want.type));
  CHECK(got.step == want.step);
  CHECK(got.attempt == want.attempt);
  CHECK(got.state == want.state);
  CHECK(got.error == want.error);
  CHECK(got.extra == want.extra);
  CHECK(got.by == want.by);
}

} // namespace stepwise::test
