// What a host program sees of the engine's values: errors that compare
// with their code, requests built by name, names CAF prints bare.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/sec.hpp>
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "engine/requests.hpp"

using namespace stepwise;

TEST_CASE("an errc compares with a caf::error of its code, whatever the context") {
  caf::error e = make_error(errc::not_found, "operation 'x' not found");
  CHECK(e == errc::not_found);
  CHECK(errc::not_found == e);
  CHECK(e != errc::invalid_state);
  CHECK(code_of(e) == errc::not_found);
  CHECK(message_of(e) == "operation 'x' not found");
  caf::error bare = errc::overloaded; // converts: CAF sees an error code enum
  CHECK(bare == errc::overloaded);
  CHECK(message_of(bare) == "overloaded");
  // Another category with the same number is not a stepwise error.
  caf::error theirs = caf::make_error(static_cast<caf::sec>(errc::not_found));
  CHECK(theirs != errc::not_found);
  CHECK(code_of(theirs) == errc{});
  CHECK(code_of(caf::error{}) == errc{});
}

TEST_CASE("tune_actor_system lets the actor system render stepwise errors") {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  auto text = sys.render(make_error(errc::stale_task, "task t-1 is stale"));
  CHECK(text.find("stale_task") != std::string::npos);
  CHECK(text.find("task t-1 is stale") != std::string::npos);
}

TEST_CASE("requests built by name carry what was named, and only that") {
  auto req = start_request::of("invoice")
               .with_input({{"n", 1}})
               .with_key("inv-1")
               .with_version(2)
               .with_label("team", "billing")
               .asked_by("ann");
  CHECK(req.workflow == "invoice");
  CHECK(req.input.at("n") == 1);
  CHECK(req.idempotency_key == "inv-1");
  CHECK(req.version == 2);
  CHECK(req.labels.at("team") == "billing");
  CHECK(req.by == "ann");
  CHECK_FALSE(req.deadline);
  CHECK(req.parent_id.empty());

  auto sig = signal_request::of("approved").with_payload({{"by", "ann"}}).with_id("ok-1");
  CHECK(sig.name == "approved");
  CHECK(sig.payload.at("by") == "ann");
  CHECK(sig.signal_id == "ok-1");
  CHECK(signal_request::of("go").payload.is_null());

  CHECK(command_request::cancel().kind == command::cancel);
  CHECK(command_request::pause().asked_by("bob").by == "bob");
  CHECK(command_request::resume().kind == command::resume);
  auto retry = command_request::retry({boost::json::object{{"size", "l"}}, "b"});
  CHECK(retry.kind == command::retry);
  CHECK(retry.input_patch->at("size") == "l");
  CHECK(retry.from_step == "b");
  auto skip = command_request::skip("b", "done by hand");
  CHECK(skip.kind == command::skip);
  CHECK(skip.step == "b");
  CHECK(skip.reason == "done by hand");
}

TEST_CASE("CAF prints states, commands and event types bare") {
  CHECK(caf::deep_to_string(op_state::succeeded) == "succeeded");
  CHECK(caf::deep_to_string(step_state::incomplete) == "incomplete");
  CHECK(caf::deep_to_string(command::retry) == "retry");
  CHECK(caf::deep_to_string(event_type::operation_canceled) == "operation_canceled");
}
