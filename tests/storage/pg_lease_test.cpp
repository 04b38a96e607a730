// Leases of operations to processes sharing one PostgreSQL database: each
// "process" is a pg_store of its own on one test schema.

#include <algorithm>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/storage/pg_test_schema.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace std::chrono_literals;
using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr auto long_ttl = std::chrono::duration_cast<duration>(60s);
constexpr auto short_ttl = std::chrono::duration_cast<duration>(1ms);

void join_ok(lease_store& st, const std::string& owner, duration ttl) {
  if (auto err = st.join(owner, ttl))
    FAIL("join failed: " << message_of(err));
}

std::vector<operation> claim_ok(lease_store& st, size_t limit = 100) {
  auto res = st.claim_orphans(limit);
  if (!res)
    FAIL("claim failed: " << message_of(res.error()));
  return std::move(*res);
}

// Lets a short lease expire (leases count on the database clock).
void expire() {
  std::this_thread::sleep_for(5ms);
}

bool is_lease_lost(const caf::error& err) {
  return code_of(err) == errc::stale_revision;
}

} // namespace

TEST_CASE("pg lease: a live owner keeps its operations", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  join_ok(*a, "a", long_ttl);
  join_ok(*b, "b", long_ttl);
  auto op = make_op("x");
  commit_ok(*a, {create(op)});
  CHECK(claim_ok(*b).empty());
  // B cannot write A's operation: fenced per item, the rest of the batch
  // goes through.
  auto res = commit_ok(*b, {update(next(op, op_state::in_progress, 1)), create(make_op("y"))});
  CHECK(res.status[0] == write_status::stale_revision);
  CHECK(res.status[1] == write_status::ok);
  // A can, and its commit renews its lease.
  res = commit_ok(*a, {update(next(op, op_state::in_progress, 1))});
  CHECK(res.status[0] == write_status::ok);
  auto owners = a->owners();
  REQUIRE(owners);
  REQUIRE(owners->size() == 2);
  CHECK((*owners)[0].owner == "a");
  CHECK((*owners)[0].lease_expires_at > (*owners)[0].renewed_at);
}

TEST_CASE("pg lease: an owner id is taken once", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  join_ok(*a, "same", long_ttl);
  auto err = b->join("same", long_ttl);
  REQUIRE(err);
  CHECK(code_of(err) == errc::invalid_argument);
  CHECK(code_of(b->renew()) == errc::invalid_state);
}

TEST_CASE("pg lease: an expired owner's operations are taken over and it "
          "is fenced",
          "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  join_ok(*a, "a", short_ttl);
  join_ok(*b, "b", long_ttl);
  auto x = make_op("x", 1);
  auto y = make_op("y", 2);
  auto done = make_op("done", 3);
  commit_ok(*a, {create(x), create(y), create(done)});
  commit_ok(*a, {update(next(done, op_state::succeeded, 4))});
  expire();
  auto taken = claim_ok(*b);
  // Oldest first, terminal ones stay, the revision moves on.
  REQUIRE(ids_of(taken) == std::vector<std::string>{"x", "y"});
  CHECK(taken[0].revision == 2);
  // A wakes up: its lease ended, so nothing it sends is written, not even
  // a create.
  auto late = a->commit({update(next(x, op_state::in_progress, 5)), create(make_op("z"))});
  REQUIRE_FALSE(late);
  CHECK(is_lease_lost(late.error()));
  require_absent(*b, "z");
  CHECK(is_lease_lost(a->renew()));
  auto claimed = a->claim_orphans(10);
  REQUIRE_FALSE(claimed);
  CHECK(is_lease_lost(claimed.error()));
  // B goes on from what it claimed.
  auto res = commit_ok(*b, {update(next(taken[0], op_state::in_progress, 6))});
  CHECK(res.status[0] == write_status::ok);
  CHECK(load_ok(*b, "x").revision == 3);
  auto owners = b->owners();
  REQUIRE(owners);
  REQUIRE(owners->size() == 1);
  CHECK((*owners)[0].owner == "b");
}

TEST_CASE("pg lease: a late renewal holds while nobody took over", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  join_ok(*a, "a", short_ttl);
  auto x = make_op("x");
  commit_ok(*a, {create(x)});
  expire();
  // Expired, but no other process ended the lease: the owner still holds
  // it (a pause that nobody noticed costs nothing).
  auto res = commit_ok(*a, {update(next(x, op_state::in_progress, 1))});
  CHECK(res.status[0] == write_status::ok);
  CHECK_FALSE(a->renew());
}

TEST_CASE("pg lease: renewal keeps a lease from being ended", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  join_ok(*a, "a", std::chrono::duration_cast<duration>(2s));
  join_ok(*b, "b", long_ttl);
  commit_ok(*a, {create(make_op("x"))});
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(a->renew());
    CHECK(claim_ok(*b).empty());
  }
}

TEST_CASE("pg lease: leaving hands the operations over at once", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto a = schema->open();
  auto b = schema->open();
  join_ok(*a, "a", long_ttl);
  join_ok(*b, "b", long_ttl);
  commit_ok(*a, {create(make_op("x"))});
  REQUIRE_FALSE(a->leave());
  CHECK(ids_of(claim_ok(*b)) == std::vector<std::string>{"x"});
  auto late = a->commit({create(make_op("z"))});
  REQUIRE_FALSE(late);
  CHECK(is_lease_lost(late.error()));
}

TEST_CASE("pg lease: operations written without a lease are orphans", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto plain = schema->open();
  std::vector<checkpoint> batch;
  for (int i = 0; i < 5; ++i)
    batch.push_back(create(make_op("op-" + std::to_string(i), i)));
  commit_ok(*plain, batch);
  auto b = schema->open();
  join_ok(*b, "b", long_ttl);
  // The limit spreads a backlog over processes.
  auto first = ids_of(claim_ok(*b, 2));
  CHECK(first.size() == 2);
  auto rest = ids_of(claim_ok(*b, 10));
  CHECK(rest.size() == 3);
  first.insert(first.end(), rest.begin(), rest.end());
  std::sort(first.begin(), first.end());
  CHECK(first == std::vector<std::string>{"op-0", "op-1", "op-2", "op-3", "op-4"});
  CHECK(claim_ok(*b).empty());
}

TEST_CASE("pg lease: concurrent claimers split the orphans", "[storage][pg][lease]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto dead = schema->open();
  join_ok(*dead, "dead", short_ttl);
  std::vector<checkpoint> batch;
  for (int i = 0; i < 300; ++i)
    batch.push_back(create(make_op("op-" + std::to_string(i), i)));
  commit_ok(*dead, batch);
  expire();
  constexpr size_t claimers = 3;
  std::vector<std::shared_ptr<pg_store>> stores;
  for (size_t i = 0; i < claimers; ++i) {
    stores.push_back(schema->open());
    join_ok(*stores.back(), "c" + std::to_string(i), long_ttl);
  }
  std::vector<std::vector<std::string>> got(claimers);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < claimers; ++i)
    threads.emplace_back([&, i] {
      for (;;) {
        auto res = stores[i]->claim_orphans(7);
        if (!res || res->empty())
          return;
        for (auto& op : *res)
          got[i].push_back(op.id);
      }
    });
  for (auto& t : threads)
    t.join();
  std::multiset<std::string> all;
  for (auto& g : got)
    all.insert(g.begin(), g.end());
  CHECK(all.size() == 300);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == 300);
}
