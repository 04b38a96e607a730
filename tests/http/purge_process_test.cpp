// `stepwise ops purge` on the real binary and SQLite: the dry run prints
// what would go and removes nothing, the purge removes exactly that, batch
// after batch, and keeps the rest; bad arguments are usage errors (2).
#include <cstdlib>

#include <catch2/catch.hpp>

#include "storage/sqlite_store.hpp"
#include "tests/shell.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

std::string stepwise_bin() {
  const char* bin = std::getenv("STEPWISE_BIN");
  REQUIRE(bin != nullptr);
  return bin;
}

// Runs `stepwise ops purge ARGS --store sqlite:DB`; returns its output,
// then its exit code on the last line.
std::string purge(const std::string& db, const std::string& args) {
  return run_command(stepwise_bin() + " ops purge " + args + " --store sqlite:" + db
                     + " --log-level error 2>&1; echo \"exit=$?\"");
}

// Five ended operations (updated at 1..5 µs past `at(0)`) and a live one.
void seed(const std::string& db) {
  auto st = sqlite_store::open(db);
  REQUIRE(st);
  for (int i = 1; i <= 6; ++i) {
    auto op = make_op("op-" + std::to_string(i), 0, "demo");
    commit_ok(**st, {create(op, {make_event(op.id, event_type::operation_created)})});
    auto state = i == 6 ? op_state::in_progress : op_state::succeeded;
    commit_ok(**st, {update(next(op, state, i))});
  }
}

size_t count_ops(const std::string& db) {
  auto st = sqlite_store::open(db);
  REQUIRE(st);
  list_filter f;
  f.limit = 100;
  auto page = (*st)->list(f);
  REQUIRE(page);
  return page->items.size();
}

} // namespace

TEST_CASE("stepwise ops purge removes what its dry run names", "[cli][retention]") {
  temp_dir dir;
  auto db = dir.path + "/sw.db";
  seed(db);
  auto before = format_time(at(1000)); // after all five ended (to the ms)
  auto dry = purge(db, "--ended-before " + before + " --dry-run");
  INFO(dry);
  CHECK_THAT(dry, Catch::Contains("would remove 5 operations and 5 events"));
  CHECK_THAT(dry, Catch::Contains("  op-1\n"));
  CHECK_THAT(dry, Catch::Contains("exit=0"));
  CHECK(count_ops(db) == 6);
  auto done = purge(db, "--ended-before " + before + " --batch 2");
  INFO(done);
  CHECK_THAT(done, Catch::Contains("removed 5 operations and 5 events"));
  CHECK_THAT(done, Catch::Contains("exit=0"));
  CHECK(count_ops(db) == 1);
  auto again = purge(db, "--ended-before 1d");
  CHECK_THAT(again, Catch::Contains("removed 0 operations"));
}

TEST_CASE("stepwise ops purge refuses a time it cannot read", "[cli][retention]") {
  temp_dir dir;
  auto out = purge(dir.path + "/sw.db", "--ended-before yesterday");
  CHECK_THAT(out, Catch::Contains("--ended-before: not an RFC 3339 time"));
  CHECK_THAT(out, Catch::Contains("exit=2"));
}
