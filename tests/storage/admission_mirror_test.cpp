// The SQLite store plans admission rounds from memory (admission_mirror):
// random creates, starts, ends, retries, pauses, stale writes and rounds,
// each round checked against one planned from a full read of the file, and
// a store opened again on the file plans the same.
#include <random>

#include <catch2/catch.hpp>

#include "storage/sqlite_store.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

std::shared_ptr<sqlite_store> open_checked(const std::string& path) {
  sqlite_options opts;
  opts.check_admission = true;
  auto st = sqlite_store::open(path, opts);
  if (!st)
    FAIL("opening " << path << ": " << message_of(st.error()));
  return *st;
}

/// One random write to operation `id` as an engine would make it.
checkpoint random_write(std::mt19937& rng, const operation& op, int64_t now) {
  auto pick = std::uniform_int_distribution<int>{0, 9}(rng);
  auto state = op.state;
  if (is_terminal(op.state))
    state = pick < 3 ? op_state::pending : op.state; // a retry, or a stale end
  else if (pick < 3)
    state = pick == 2 ? op_state::waiting : op_state::in_progress;
  else if (pick < 6)
    state = pick % 2 ? op_state::succeeded : op_state::failed;
  else if (pick < 7)
    state = op_state::paused;
  else if (pick < 8)
    state = op_state::canceled;
  auto upd = next(op, state, now);
  if (pick == 9)
    upd.revision += 1; // stale: the store refuses it
  return update(upd);
}

} // namespace

TEST_CASE("rounds planned from memory are the rounds a full read plans",
          "[storage][admission][mirror]") {
  auto seed = GENERATE(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
  temp_dir dir;
  auto path = dir.file("store.db");
  auto st = open_checked(path);
  std::mt19937 rng{seed};
  admission_limits limits{{"limited", 3}};
  std::vector<std::string> ids;
  int64_t now = 0;
  for (int i = 0; i < 400; ++i) {
    now += 10;
    auto pick = std::uniform_int_distribution<int>{0, 9}(rng);
    if (pick < 3 || ids.empty()) {
      auto id = "op-" + std::to_string(ids.size());
      auto wf = pick == 0 ? "limited" : pick == 1 ? "plain" : "provision_runtime";
      auto op = make_op(id, now - std::uniform_int_distribution<int>{0, 30}(rng), wf);
      if (pick != 1)
        op.admission = admission::queued;
      if (pick != 0)
        op.key = "k" + std::to_string(std::uniform_int_distribution<int>{0, 4}(rng));
      commit_ok(*st, {create(op)});
      ids.push_back(id);
    } else if (pick < 8) {
      auto& id = ids[std::uniform_int_distribution<size_t>{0, ids.size() - 1}(rng)];
      commit_ok(*st, {random_write(rng, load_ok(*st, id), now)});
    } else {
      auto round = st->admit(limits, at(now));
      if (!round)
        FAIL("round " << i << ": " << message_of(round.error()));
    }
  }
  auto last = st->admit(limits, at(now + 1));
  REQUIRE(last);
  st.reset();
  auto reopened = open_checked(path);
  auto again = reopened->admit(limits, at(now + 1));
  REQUIRE(again);
  CHECK(again->startable == last->startable);
  CHECK(again->updates.empty());
}
