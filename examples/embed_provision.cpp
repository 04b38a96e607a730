// An embedding program: a CAF host starts stepwise on the embedded SQLite
// store, runs a provisioning workflow with a retry and a best-effort step,
// and prints the step timeline.
#include <iostream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/engine.hpp"
#include "storage/open_engine.hpp"
#include "engine/errc.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

int main(int argc, char** argv) {
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  registry reg;
  auto ok = reg.add(
    workflow("provision_runtime", 1)
      .step(10, make_step("reserve_ip",
                          [](step_context& c) {
                            c.data()["ip"] = "10.0.0.7";
                            return done();
                          }))
      .step(20, make_step("create_vm",
                          [](step_context& c) {
                            return c.attempt() < 2 ? retry_after(200ms, "quota not ready") : done();
                          }))
      .step(30, make_step("notify_chat", [](step_context&) { return fail("chat is down"); })
                  .as_best_effort())
      .step(40, make_step("mark_ready", [](step_context& c) {
              c.data()["ready"] = true;
              return done();
            })));
  engine_config ec;
  ec.store_uri = argc > 1 ? argv[1] : "sqlite:./stepwise-example.db";
  auto eng = open_engine(sys, ec, std::move(reg));
  if (!ok || !eng) {
    std::cerr << "start-up failed: " << message_of(ok ? eng.error() : ok.error()) << '\n';
    return 1;
  }
  auto started =
    eng->start({"provision_runtime", std::nullopt, {{"region", "eu-1"}}, {}, std::nullopt});
  auto op = started ? eng->wait(started->op.id, 30s) : caf::expected<operation>{started.error()};
  if (!op) {
    std::cerr << message_of(op.error()) << '\n';
    return 1;
  }
  std::cout << op->id << " " << to_string(op->state) << " data=" << boost::json::serialize(op->data)
            << '\n';
  for (auto& s : op->steps)
    std::cout << "  " << (s.first_attempt_at ? format_time(*s.first_attempt_at) : "-") << " "
              << s.name << ": " << to_string(s.state) << ", attempts " << s.attempts
              << (s.last_error.empty() ? "" : ", last error: " + s.last_error) << '\n';
  eng->shutdown();
  return op->state == op_state::succeeded ? 0 : 1;
}
