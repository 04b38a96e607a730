// The console's schedules, in a real browser: the Schedules page lists a
// schedule with its next fire and counts; its page pauses and resumes it,
// triggers a fire whose operation shows up with its state (and links back
// to the schedule), and deletes it with two clicks.

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

TEST_CASE("the console lists, pauses, triggers and deletes a schedule", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  s.sign_in();
  auto c = s.api();
  // At 03:00 in Berlin: no fire of its own while the test runs (unless it
  // runs then).
  auto made = to_reply(c.Post("/api/v1/schedules",
                              R"({"id":"nightly","workflow":"demo","input":{"name":"night"},)"
                              R"("cron":"0 3 * * *","time_zone":"Europe/Berlin"})",
                              "application/json"));
  INFO(made.body);
  REQUIRE(made.status == 201);
  REQUIRE(to_reply(c.Post("/api/v1/schedules",
                          R"({"id":"heartbeat","workflow":"demo","input":{"name":"beat"},)"
                          R"("every":"1d","paused":true})",
                          "application/json"))
            .status
          == 201);

  b.eval("document.querySelector('[data-nav=schedules]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('#schedules tr[data-id=nightly]')",
                     std::chrono::seconds(20)));
  CHECK(b.eval("document.querySelector('#schedules tr[data-id=nightly]').innerText"
               ".includes('0 3 * * * · Europe/Berlin')")
        == true);
  CHECK(b.eval("!!document.querySelector('#schedules tr[data-id=nightly] .next-fire time')")
        == true);
  CHECK(b.eval("document.querySelector('#schedules tr[data-id=heartbeat] .next-fire').innerText")
        == "paused");
  REQUIRE(b.screenshot(artifact("console-schedules.png")));

  b.eval("document.querySelector('#schedules tr[data-id=nightly] a').click(); true");
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.paused === 'false'",
                     std::chrono::seconds(20)));
  CHECK(b.wait_for("!!document.querySelector('.panel .empty')", std::chrono::seconds(10)));
  b.eval("document.querySelector('[data-action=pause]').click(); true");
  REQUIRE(b.wait_for("document.querySelector('.title-row').dataset.paused === 'true'"
                     " && document.querySelector('[data-field=next_fire]').innerText"
                     "   .includes('paused')",
                     std::chrono::seconds(10)));
  b.eval("document.querySelector('[data-action=resume]').click(); true");
  REQUIRE(b.wait_for("document.querySelector('.title-row').dataset.paused === 'false'"
                     " && !!document.querySelector('[data-field=next_fire] time')",
                     std::chrono::seconds(10)));

  // A fire now: its operation is listed, and its state follows live.
  b.eval("document.querySelector('[data-action=trigger]').click(); true");
  CHECK(b.wait_for("document.querySelector('#toasts').innerText.includes('Fired: operation')",
                   std::chrono::seconds(10)));
  REQUIRE(b.wait_for("document.querySelectorAll('#schedule-operations tbody tr').length === 1"
                     " && document.querySelector('[data-field=fired] dd').innerText === '1'",
                     std::chrono::seconds(20)));
  // The demo retries once, after 2 s: it ends on the page without a reload.
  CHECK(b.wait_for("document.querySelector('#schedule-operations tbody tr')"
                   "  .dataset.state === 'succeeded'",
                   std::chrono::seconds(30)));
  REQUIRE(b.screenshot(artifact("console-schedule.png")));

  // The operation links back to its schedule.
  b.eval("document.querySelector('#schedule-operations tbody a').click(); true");
  REQUIRE(
    b.wait_for("!!document.querySelector('a[data-link=schedule]')", std::chrono::seconds(20)));
  CHECK(b.eval("document.querySelector('a[data-link=schedule]').getAttribute('href')")
        == "#/schedules/nightly");
  CHECK(b.eval("!!document.querySelector('a[data-link=parent]')") == false);
  CHECK(b.wait_for("!!document.querySelector('#timeline [data-type=schedule_fired]')",
                   std::chrono::seconds(10)));
  b.eval("document.querySelector('a[data-link=schedule]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('[data-action=delete]')", std::chrono::seconds(20)));

  // Delete asks for a second click, then the list no longer has it.
  b.eval("document.querySelector('[data-action=delete]').click(); true");
  CHECK(b.eval("document.querySelector('[data-action=delete]').textContent")
        == "Click again to delete");
  b.eval("document.querySelector('[data-action=delete]').click(); true");
  REQUIRE(b.wait_for("location.hash === '#/schedules'"
                     " && !!document.querySelector('#schedules tr[data-id=heartbeat]')"
                     " && !document.querySelector('#schedules tr[data-id=nightly]')",
                     std::chrono::seconds(20)));
  CHECK(to_reply(c.Get("/api/v1/schedules/nightly")).status == 404);
}
