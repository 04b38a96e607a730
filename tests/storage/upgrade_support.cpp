#include "tests/storage/upgrade_support.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "workflows/demo.hpp"

namespace stepwise::test {

std::string fixture_text(const std::string& name) {
  auto dir = std::getenv("STEPWISE_FIXTURES");
  REQUIRE(dir != nullptr);
  std::ifstream in{std::string(dir) + "/" + name};
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string check_fixture_rows(store& st) {
  auto ended = st.find_by_key("fixture-ended");
  REQUIRE(ended);
  REQUIRE(ended->has_value());
  auto& a = **ended;
  CHECK(a.workflow == "demo");
  CHECK(a.state == op_state::succeeded);
  CHECK(a.data.at("finished") == true);
  REQUIRE(a.steps.size() == 5);
  CHECK(a.steps[1].attempts == 2);
  auto active = st.load_active();
  REQUIRE(active);
  REQUIRE(active->size() == 1);
  auto& b = active->front();
  CHECK(b.state == op_state::waiting);
  CHECK(b.input->at("name") == "sleeper");
  CHECK(b.steps[2].name == "pause");
  CHECK(b.steps[2].state == step_state::waiting);
  REQUIRE(b.signals.size() == 1);
  CHECK(b.signals[0].name == "go");
  CHECK(b.signals[0].payload.at("payload").at("x") == 1);
  // Listed by state: ended ones and live ones (PostgreSQL reads them
  // through different indexes since migration 10).
  for (auto [state, id] :
       {std::pair{op_state::succeeded, a.id}, std::pair{op_state::waiting, b.id}}) {
    list_filter f;
    f.state = state;
    auto page = st.list(f);
    REQUIRE(page);
    REQUIRE(page->items.size() == 1);
    CHECK(page->items[0].id == id);
  }
  auto events = st.events_after(0, 1000);
  REQUIRE(events);
  CHECK(events->size() == 27);
  size_t of_b = 0;
  for (auto& e : *events)
    of_b += e.operation_id == b.id ? 1 : 0;
  CHECK(of_b > 0);
  // By operation, from the index: the same events.
  auto mine = st.events_of(b.id, 0, 1000);
  REQUIRE(mine);
  CHECK(mine->size() == of_b);
  // Old operations have no labels; new ones are found by theirs.
  CHECK(a.labels.empty());
  CHECK(a.idempotency_key == "fixture-ended");
  operation labeled = a;
  labeled.id = "op-upgraded-labeled";
  labeled.idempotency_key.clear();
  labeled.labels = {{"runtime", "rt-1"}};
  labeled.revision = 1;
  auto res = st.commit(
    {checkpoint{checkpoint::kind::create, std::make_shared<const operation>(labeled), {}}});
  REQUIRE(res);
  list_filter by_label;
  by_label.labels = {{"runtime", "rt-1"}};
  auto found = st.list(by_label);
  REQUIRE(found);
  REQUIRE(found->items.size() == 1);
  CHECK(found->items[0].id == labeled.id);
  CHECK(found->items[0].labels == labeled.labels);
  list_filter by_key;
  by_key.idempotency_key = "fixture-ended";
  found = st.list(by_key);
  REQUIRE(found);
  REQUIRE(found->items.size() == 1);
  CHECK(found->items[0].id == a.id);
  auto sched = st.load_schedule("nightly");
  REQUIRE(sched);
  REQUIRE(sched->has_value());
  CHECK((*sched)->cron == "0 3 * * *");
  CHECK((*sched)->workflow == "demo");
  return b.id;
}

void check_sleeper_resumes(store_ptr st, const std::string& id) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  registry reg;
  REQUIRE(reg.add(workflows::demo()));
  engine_config ec;
  // The fixture's wake-up time is long past: it resumes at once.
  auto eng = engine::launch(sys, ec, std::move(reg), std::move(st));
  if (!eng)
    FAIL("launch failed: " << message_of(eng.error()));
  auto done = eng->wait(id, std::chrono::seconds(30));
  REQUIRE(done);
  CHECK(done->state == op_state::succeeded);
  CHECK(done->data.at("finished") == true);
  // Every attempt (retries included) was counted out once its result was
  // applied: a drain would not wait for a ghost.
  CHECK(eng->attempts_running() == 0);
  eng->shutdown();
}

} // namespace stepwise::test
