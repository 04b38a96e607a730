// A CAF program that embeds stepwise on its own actor system and serves
// its own workflow over stepwise's HTTP API, console and CLI: `host
// --listen 127.0.0.1:8080 --store sqlite:./host.db` (every `stepwise serve`
// flag works). Once the server listens, the host's own actor orders a book
// by typed requests to the engine and prints the outcome.
#include <iostream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "engine/requests.hpp"
#include "tools/host.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

// The host's workflow: price an order, then "ship" it (retried once, as a
// real carrier's API would be).
workflow order() {
  auto price = make_step("price", [](step_context& c) {
    auto count = c.input().at("count").to_number<int64_t>();
    c.data()["total_cents"] = count * 1250;
    return done();
  });
  auto ship = make_step("ship", [](step_context& c) {
    if (c.attempt() == 1)
      return retry_after(100ms, "the carrier is busy");
    c.data()["tracking"] = "TRK-" + c.operation_id();
    return done();
  });
  workflow wf{"order", 1};
  wf.step(1, price).step(2, ship);
  return wf;
}

// The host's own actor: it talks to the engine by typed requests only (a
// message the engine does not take would not compile).
caf::behavior clerk(caf::event_based_actor* self, dispatcher_actor eng) {
  start_request req{
    "order", std::nullopt, {{"item", "book"}, {"count", 2}}, "clerk-order-1", std::nullopt};
  auto fail = [self](const caf::error& err) {
    std::cout << "typed request failed: " << message_of(err) << std::endl;
    self->quit(err);
  };
  self->request(eng, 10s, start_atom::value, std::move(req))
    .then(
      [=](const start_result& started) {
        self->request(eng, 60s, wait_atom::value, started.op.id)
          .then(
            [=](const operation& op) {
              std::cout << "typed: " << op.id << " " << to_string(op.state)
                        << " total_cents=" << boost::json::serialize(op.data.at("total_cents"))
                        << std::endl;
              self->quit();
            },
            fail);
      },
      fail);
  // No handlers: it lives until its answers come.
  return {};
}

} // namespace

int main(int argc, char** argv) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  serve_host host;
  host.system = &sys;
  host.builtin = false;
  host.workflows = [](registry& reg, const host_context&) { return reg.add(order()); };
  host.ready = [&sys](const served& s) {
    std::cout << "host: serving on " << s.url << std::endl;
    sys.spawn(clerk, s.dispatcher);
  };
  return serve(argc, argv, host);
}
