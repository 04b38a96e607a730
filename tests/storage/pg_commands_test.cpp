// Commands stored for the owner of an operation on a shared PostgreSQL
// store: one takes effect once, whichever process reads it. Two processes
// may both read the command of an operation that ended: one refuses it
// (and deletes it) while the other retries the operation and carries it
// out; the write that carries it out happens only while it is stored.

#include <catch2/catch.hpp>

#include "engine/command_store.hpp"
#include "tests/storage/pg_test_schema.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

int64_t put_signal(store& st, const std::string& id) {
  stored_command c;
  c.operation_id = id;
  c.is_signal = true;
  c.signal_name = "go";
  c.created_at = at(5);
  auto seq = st.commands()->put(c);
  if (!seq)
    FAIL("put failed: " << message_of(seq.error()));
  return *seq;
}

// The retry of `ended` that carries out command `seq`.
checkpoint retry_with(const operation& ended, int64_t seq) {
  auto cp = update(next(ended, op_state::pending, 10));
  cp.consumed_command = seq;
  return cp;
}

} // namespace

TEST_CASE("pg commands: one refused by a process is not carried out by another",
          "[storage][pg][lease][commands]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  auto ttl = std::chrono::duration_cast<duration>(60s);
  REQUIRE(!a->leases()->join("a", ttl));
  REQUIRE(!b->leases()->join("b", ttl));
  auto op = make_op("x");
  commit_ok(*a, {create(op)});
  auto failed = next(op, op_state::failed, 2);
  commit_ok(*a, {update(failed)});

  // Both read it (the operation ended: any process may); B refuses it first.
  auto seq = put_signal(*b, "x");
  REQUIRE(!b->commands()->drop(seq, command_outcome::refused));
  auto res = commit_ok(*a, {retry_with(failed, seq)});
  CHECK(res.status[0] == write_status::stale_revision);
  CHECK(load_ok(*a, "x").state == op_state::failed);

  // A carries the next one out first: B's refusal then deletes nothing.
  auto again = put_signal(*b, "x");
  res = commit_ok(*a, {retry_with(failed, again)});
  CHECK(res.status[0] == write_status::ok);
  CHECK(load_ok(*a, "x").state == op_state::pending);
  auto left = b->commands()->for_owner("b", 10);
  REQUIRE(left);
  CHECK(left->empty());
  CHECK(!b->commands()->drop(again, command_outcome::refused));
}

TEST_CASE("pg commands: a stored command keeps who asked for it", "[storage][pg][commands]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto ttl = std::chrono::duration_cast<duration>(60s);
  REQUIRE(!a->leases()->join("a", ttl));
  auto op = make_op("x");
  commit_ok(*a, {create(op)});
  auto failed = next(op, op_state::failed, 2);
  commit_ok(*a, {update(failed)});
  stored_command c;
  c.operation_id = "x";
  c.cmd = command::retry;
  c.created_at = at(5);
  c.by = "alice";
  REQUIRE(a->commands()->put(c));
  auto read = a->commands()->for_owner("a", 10);
  REQUIRE(read);
  REQUIRE(read->size() == 1);
  CHECK(read->front().cmd == command::retry);
  CHECK(read->front().by == "alice");
  CHECK(!read->front().is_signal);
}
