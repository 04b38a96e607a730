// The blocking handle, a typed request to the dispatcher and the HTTP API
// are three doors into one engine, and a client must not be able to tell
// which one it used. Each operation starts through one door and is read,
// commanded and signaled through all three (tests/http/three_ways.hpp);
// answers are compared as the JSON the API prints, refusals by code and
// message.
#include <atomic>

#include <catch2/catch.hpp>

#include "tests/http/three_ways.hpp"

namespace stepwise::test::three_ways {
namespace {

// Until set, `flaky` asks for a retry on each attempt and so fails the
// operation after its two: something for retry to act on.
std::atomic<bool> flaky_ok{false};

outcome prepare(step_context& ctx) {
  ctx.data()["prepared"] = ctx.attempt();
  return ctx.keep_secret("api_key", "k-42") ? done() : fail("cannot seal");
}

outcome flaky(step_context&) {
  return flaky_ok ? done() : retry_after(std::chrono::seconds(30), "flaky: not yet");
}

registry trio() {
  retry_policy twice;
  twice.max_attempts = 2;
  workflow wf("trio", 1);
  wf.step(1, make_step("prepare", prepare))
    .step(2, await_signal("approval", "approve"))
    .step(3, make_step("flaky", flaky).with_policy(twice))
    .secret("/token");
  registry reg;
  REQUIRE(reg.add(std::move(wf)));
  return reg;
}

start_request start_of(size_t i) {
  start_request rq;
  rq.workflow = "trio";
  rq.input = {{"user", "u" + std::to_string(i)}, {"token", "s3cret-" + std::to_string(i)}};
  rq.idempotency_key = "three-" + std::to_string(i);
  return rq;
}

} // namespace

TEST_CASE("the handle, a typed request and the HTTP API give the same answers",
          "[http][three_ways]") {
  flaky_ok = false;
  world w{trio()};
  std::vector<std::string> ids;
  for (auto how : every_way) {
    auto a = start(w, how, start_of(ids.size()));
    INFO(name_of(how) << ": " << a.message);
    REQUIRE(a.code.empty());
    CHECK(a.fresh);
    CHECK(a.json.at("input").at("token") == "***");
    CHECK(boost::json::serialize(a.json).find("s3cret") == std::string::npos);
    ids.emplace_back(a.json.at("id").as_string());
    CHECK(a.status == (how == way::http ? 201 : 0));
  }
  for (auto& id : ids)
    REQUIRE(logged(w, id, event_type::operation_waiting));
  same_everywhere(w, ids);
  CHECK(state_of(w, ids[0]).at("state") == "waiting");
  CHECK(state_of(w, ids[0]).at("data") == boost::json::object{{"prepared", 1}, {"api_key", "***"}});

  // A replayed key: the stored operation, through every way, from every way.
  for (size_t i = 0; i < ids.size(); ++i)
    for (auto how : every_way) {
      auto a = start(w, how, start_of(i));
      INFO(name_of(how) << " replays key " << i);
      CHECK_FALSE(a.fresh);
      CHECK(a.status == (how == way::http ? 200 : 0));
      CHECK(a.json == state_of(w, ids[i]));
    }
  auto conflicting = start_of(0);
  conflicting.input["user"] = "someone else";
  refused([&](way how) { return start(w, how, conflicting); }, "idempotency_conflict", 409);
  auto unknown = start_of(7);
  unknown.workflow = "nope";
  refused([&](way how) { return start(w, how, unknown); }, "unknown_workflow", 400);

  signal_request approve{"approve", boost::json::object{{"ok", true}}, "sig-x"};
  refused([&](way how) { return get(w, how, "op-nope"); }, "not_found", 404);
  for (auto cmd : {command::cancel, command::retry, command::pause, command::resume})
    refused([&](way how) { return order(w, how, "op-nope", cmd); }, "not_found", 404);
  refused([&](way how) { return signal(w, how, "op-nope", approve); }, "not_found", 404);
  refused([&](way how) { return order(w, how, ids[0], command::resume); }, "invalid_state", 409);
  refused([&](way how) { return order(w, how, ids[0], command::retry); }, "invalid_state", 409);

  // Pause: the operation that way i started is paused through the next way.
  for (auto how : every_way) {
    auto& id = ids[static_cast<size_t>(how)];
    auto a = order(w, nth_after(how, 1), id, command::pause);
    REQUIRE(a.code.empty());
    CHECK(a.json.at("state") == "paused");
    REQUIRE(logged(w, id, event_type::operation_paused));
    CHECK(a.json == state_of(w, id));
    refused([&](way h) { return order(w, h, id, command::pause); }, "invalid_state", 409);
  }
  same_everywhere(w, ids);

  // A signal to a paused operation is kept for its wait; its repeat through
  // any way is a duplicate that writes nothing.
  for (auto how : every_way) {
    auto& id = ids[static_cast<size_t>(how)];
    approve.signal_id = "sig-" + id;
    auto a = signal(w, nth_after(how, 2), id, approve);
    REQUIRE(a.code.empty());
    CHECK(a.fresh);
    REQUIRE(a.json.at("signals").as_array().size() == 1);
    for (auto again : agree([&](way h) { return signal(w, h, id, approve); })) {
      CHECK_FALSE(again.fresh);
      CHECK(again.json == state_of(w, id));
    }
  }
  same_everywhere(w, ids);

  // Resumed, each takes its signal and `flaky` waits for its second attempt
  // on the virtual clock.
  for (auto how : every_way) {
    auto& id = ids[static_cast<size_t>(how)];
    auto a = order(w, how, id, command::resume);
    REQUIRE(a.code.empty());
    CHECK(a.status == (how == way::http ? 202 : 0));
    REQUIRE(logged(w, id, event_type::step_retry_scheduled));
  }
  same_everywhere(w, ids);
  auto third = state_of(w, ids[1]).at("steps").as_array().at(2);
  CHECK(third.at("attempts") == 1);
  CHECK(third.at("last_error") == "flaky: not yet");
  CHECK(state_of(w, ids[1]).at("data").at("approve") == boost::json::object{{"ok", true}});

  w.clk->advance(std::chrono::seconds(30));
  for (auto& id : ids) {
    auto got = agree([&](way how) { return ended(w, how, id); })[0];
    CHECK(got.json.at("state") == "failed");
  }
  same_everywhere(w, ids);
  CHECK(state_of(w, ids[2]).at("steps").as_array().at(2).at("attempts") == 2);
  for (auto cmd : {command::cancel, command::pause, command::resume})
    refused([&](way how) { return order(w, how, ids[2], cmd); }, "invalid_state", 409);
  // A new id: a repeat of the stored one is answered as a duplicate even now.
  approve.signal_id = "sig-late";
  refused([&](way how) { return signal(w, how, ids[2], approve); }, "invalid_state", 409);

  // Retry: each failed operation through another way; now `flaky` succeeds.
  flaky_ok = true;
  for (auto how : every_way) {
    auto& id = ids[static_cast<size_t>(how)];
    REQUIRE(order(w, nth_after(how, 1), id, command::retry).code.empty());
    auto got = agree([&](way h) { return ended(w, h, id); })[0];
    CHECK(got.json.at("state") == "succeeded");
    refused([&](way h) { return order(w, h, id, command::retry); }, "invalid_state", 409);
  }
  same_everywhere(w, ids);

  // Cancel: three more operations, each canceled through another way than
  // the one that started it.
  std::vector<std::string> more;
  for (auto how : every_way) {
    auto rq = start_of(3 + more.size());
    rq.idempotency_key.clear();
    auto a = start(w, how, rq);
    REQUIRE(a.code.empty());
    more.emplace_back(a.json.at("id").as_string());
    REQUIRE(logged(w, more.back(), event_type::operation_waiting));
    auto c = order(w, nth_after(how, 2), more.back(), command::cancel);
    REQUIRE(c.code.empty());
    CHECK(c.json.at("state") == "canceled");
    CHECK(agree([&](way h) { return ended(w, h, more.back()); })[0].json == c.json);
    refused([&](way h) { return order(w, h, more.back(), command::cancel); }, "invalid_state", 409);
    // (A retry would run it again: canceled operations may be retried.)
    refused([&](way h) { return order(w, h, more.back(), command::resume); }, "invalid_state", 409);
  }
  ids.insert(ids.end(), more.begin(), more.end());
  same_everywhere(w, ids);
  for (auto st : {op_state::succeeded, op_state::canceled}) {
    list_filter f;
    f.workflow = "trio";
    f.state = st;
    auto got = agree([&](way how) { return list(w, how, f); })[0];
    CHECK(got.json.at("items").as_array().size() == 3);
  }
  // The three ways agreed above; no answer of the handle shows a secret.
  for (auto& id : ids) {
    auto text = boost::json::serialize(state_of(w, id));
    CHECK(text.find("s3cret") == std::string::npos);
    CHECK(text.find("k-42") == std::string::npos);
  }
}

} // namespace stepwise::test::three_ways
