// The console's actions, in a real browser: on a waiting operation, a
// signal sent from its dialog shows up on the page, pause says what the
// server answered, and cancel (two clicks) ends the operation, live; a
// failed operation is retried. The timeline names who did each.

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

TEST_CASE("the console signals, pauses and cancels an operation", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  s.sign_in();
  // Its infrastructure takes a minute: it waits meanwhile.
  auto id = s.start("provision_runtime",
                    R"({"name":"rt1","template":"latency_ms: 60000","template_type":"TOSCA",)"
                    R"("deployment_location":{"name":"dc1","properties":{"password":"hunter2"}}})");
  s.show(id);
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'waiting'",
                     std::chrono::seconds(30)));
  CHECK(b.eval("document.body.innerText.includes('hunter2')") == false);

  b.eval("document.querySelector('[data-action=signal]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('dialog[open] textarea')", std::chrono::seconds(5)));
  b.eval("const d = document.querySelector('dialog[open]');"
         "d.querySelector('input[required]').value = 'approved';"
         "d.querySelector('textarea').value = '{\"by\": \"ops\"}';"
         "d.querySelectorAll('input')[1].value = 'sig-1';"
         "d.querySelector('button[type=submit]').click(); true");
  CHECK(b.wait_for("document.querySelector('#toasts')?.innerText.includes('Signal sent')",
                   std::chrono::seconds(10)));
  CHECK(b.wait_for("!!document.querySelector('#signals tbody tr')"
                   " && !!document.querySelector('#timeline [data-type=signal_received]')",
                   std::chrono::seconds(10)));

  // Pause: the operation waits on its infrastructure, so it pauses at once
  // (and the page shows it before the next action).
  b.eval("document.querySelector('[data-action=pause]').click(); true");
  CHECK(b.wait_for("/Pause requested/.test(document.querySelector('#toasts').innerText)",
                   std::chrono::seconds(10)));
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'paused'"
                     " && !!document.querySelector('#timeline [data-type=operation_paused]')",
                     std::chrono::seconds(30)));

  // Cancel asks for a second click.
  b.eval("document.querySelector('[data-action=cancel]').click(); true");
  CHECK(b.eval("document.querySelector('[data-action=cancel]').textContent")
        == "Click again to cancel");
  b.eval("document.querySelector('[data-action=cancel]').click(); true");
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'canceled'",
                     std::chrono::seconds(30)));
  CHECK(b.wait_for("!!document.querySelector('#timeline [data-type=operation_canceled]')",
                   std::chrono::seconds(10)));
  // Who did what: each request's event names the token (`console`); a
  // step's own events name nobody.
  for (auto type :
       {"operation_created", "signal_received", "operation_paused", "operation_canceled"})
    CHECK(b.eval(std::string("document.querySelector('#timeline [data-type=") + type
                 + "] .event-by')?.innerText")
          == "by console");
  CHECK(b.eval("!!document.querySelector('#timeline [data-type=step_started] .event-by')")
        == false);
  REQUIRE(b.screenshot(artifact("console-canceled.png")));
}

TEST_CASE("the console retries a failed operation with an input patch, after a review",
          "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  s.sign_in();
  // The simulated cloud refuses this template: the first step fails.
  auto id =
    s.start("build_and_launch",
            R"({"name":"app9","deployment_location":{"name":"dc1"},"template_type":"TOSCA",)"
            R"("image_template":"fail: quota","instance_template":"type: vm"})");
  s.show(id);
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'failed'"
                     " && !!document.querySelector('[data-action=retry]')",
                     std::chrono::seconds(30)));
  CHECK(b.eval("document.querySelectorAll('#actions [data-action=cancel]').length") == 0);
  CHECK(b.eval("!!document.querySelector('#actions [data-action=skip]')") == true);
  b.eval("document.querySelector('[data-action=retry]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('dialog[open] textarea')", std::chrono::seconds(5)));
  // The first submit reviews what will change; nothing is sent yet.
  b.eval("const d = document.querySelector('dialog[open]');"
         "d.querySelector('textarea').value = '{\"image_template\": \"type: image\"}';"
         "d.querySelector('button[type=submit]').click(); true");
  REQUIRE(b.wait_for("document.querySelector('dialog[open] .review')?.innerText"
                     ".includes('patch the input at /image_template')",
                     std::chrono::seconds(5)));
  CHECK(b.eval("document.querySelector('dialog[open] .review').innerText"
               ".includes('keep workflow build_and_launch version')")
        == true);
  CHECK(b.eval("document.querySelectorAll('#timeline [data-type=operation_retried]').length") == 0);
  REQUIRE(b.screenshot(artifact("console-retry-review.png")));
  b.eval("document.querySelector('dialog[open] button[data-step=confirm]').click(); true");
  CHECK(b.wait_for("document.querySelector('#toasts').innerText.includes('Retry requested')",
                   std::chrono::seconds(10)));
  // It runs again with the patched input, live on the page, and succeeds.
  CHECK(b.wait_for("!!document.querySelector('#timeline [data-type=input_patched]')",
                   std::chrono::seconds(10)));
  CHECK(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'succeeded'",
                   std::chrono::seconds(60)));
}
