// The web console in a real browser: headless Chromium, driven through its
// DevTools protocol, loads the console of a real `stepwise serve` that asks
// for tokens, is given a token, starts a build_and_launch operation from
// the start page and sees it succeed, live, on the operation's page; the
// list's filters, paging and health panel; a server without tokens.
// Screenshots go to the build's meson-logs/ (STEPWISE_ARTIFACTS).

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

TEST_CASE("the console starts an operation and shows it succeed, live", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  // The root redirects to the console, which finds it needs a token.
  b.navigate(s.base + "/");
  REQUIRE(
    b.wait_for("document.getElementById('token-dialog')?.open === true", std::chrono::seconds(20)));
  CHECK(b.eval("location.pathname") == "/ui/");
  REQUIRE(b.screenshot(artifact("console-token.png")));
  // A wrong token is refused in the dialog.
  b.eval("document.getElementById('token-input').value = 'not-the-token-at-all';"
         "document.querySelector('#token-form button[type=submit]').click(); true");
  CHECK(b.wait_for("document.getElementById('token-error').textContent.includes('refused')",
                   std::chrono::seconds(10)));
  b.eval("document.getElementById('token-input').value = " + js(console_token)
         + ";"
           "document.querySelector('#token-form button[type=submit]').click(); true");
  REQUIRE(b.wait_for("!document.getElementById('token-dialog').open"
                     " && !!document.querySelector('#operations tbody')",
                     std::chrono::seconds(20)));
  CHECK(b.wait_for("document.getElementById('live').classList.contains('on')",
                   std::chrono::seconds(20)));

  // Start build_and_launch from the start page, with its example input.
  b.eval("document.querySelector('[data-nav=start]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('#start-workflow option[value=build_and_launch]')",
                     std::chrono::seconds(20)));
  b.eval("const s = document.getElementById('start-workflow'); s.value = 'build_and_launch';"
         "s.dispatchEvent(new Event('change')); true");
  CHECK(b.wait_for("document.getElementById('start-input').value.includes('image_template')",
                   std::chrono::seconds(5)));
  REQUIRE(b.screenshot(artifact("console-start.png")));
  b.eval("document.getElementById('start-submit').click(); true");
  REQUIRE(b.wait_for("location.hash.startsWith('#/operations/op-')", std::chrono::seconds(20)));
  auto id = std::string(b.eval("decodeURIComponent(location.hash.split('/')[2])").as_string());
  INFO("operation " << id);

  // It succeeds on the page without a reload: the stream brings the events.
  REQUIRE(b.wait_for("document.querySelector('.title-row')?.dataset.state === 'succeeded'",
                     std::chrono::seconds(60)));
  CHECK(b.wait_for("!!document.querySelector('#timeline [data-type=operation_succeeded]')",
                   std::chrono::seconds(10)));
  CHECK(b.eval("document.querySelectorAll('#steps tbody tr[data-state=succeeded]').length") == 4);
  CHECK(b.eval("document.querySelectorAll('#actions [data-action=cancel]').length") == 0);
  // Events that overflow the timeline scroll under its title, which stays
  // in view when the page follows the newest (a short panel makes its 14
  // events overflow); and a step's event does not show the operation's
  // state as if it were the step's.
  CHECK(b.eval("(() => { const p = document.querySelector('.detail-side');"
               " p.style.maxHeight = '300px';"
               " const box = document.getElementById('timeline').parentElement;"
               " box.scrollTop = box.scrollHeight;"
               " return box.scrollHeight > box.clientHeight + 50"
               " && p.querySelector('h2').getBoundingClientRect().top"
               " >= p.getBoundingClientRect().top; })()")
        == true);
  b.eval("document.querySelector('.detail-side').style.maxHeight = ''; true");
  CHECK(b.eval("[...document.querySelectorAll('#timeline [data-type^=step_]')]"
               ".every((li) => !li.innerText.includes('in progress'))")
        == true);
  REQUIRE(b.screenshot(artifact("console-operation.png")));

  // The list shows it; the workflows page lists every workflow.
  b.eval("document.querySelector('[data-nav=operations]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('#operations tr[data-id=\"" + id
                       + "\"][data-state=succeeded]')",
                     std::chrono::seconds(20)));
  REQUIRE(b.wait_for("document.querySelectorAll('.stat').length === 6", std::chrono::seconds(10)));
  // The health panel counts it (from /metrics, polled every 5 s).
  CHECK(b.wait_for("[...document.querySelectorAll('.stat')].some((c) =>"
                   " c.querySelector('.stat-label').textContent === 'Succeeded'"
                   " && c.querySelector('.stat-value').textContent === '1')",
                   std::chrono::seconds(15)));
  REQUIRE(b.screenshot(artifact("console-operations.png")));
  // The filters: by state, by workflow.
  b.eval("const f = document.getElementById('filter-state'); f.value = 'failed';"
         "f.dispatchEvent(new Event('change')); true");
  CHECK(b.wait_for("location.hash === '#/operations?state=failed'"
                   " && document.querySelector('#operations .empty')?.textContent"
                   "   === 'No operation matches these filters.'",
                   std::chrono::seconds(10)));
  b.eval("location.hash = '#/operations?state=succeeded&workflow=build_and_launch'; true");
  CHECK(b.wait_for("document.querySelectorAll('#operations tr[data-id]').length === 1",
                   std::chrono::seconds(10)));
  b.eval("location.hash = '#/operations?workflow=demo'; true");
  CHECK(b.wait_for("!!document.querySelector('#operations .empty')", std::chrono::seconds(10)));
  b.eval("document.querySelector('[data-nav=workflows]').click(); true");
  REQUIRE(b.wait_for("!!document.querySelector('[data-workflow=build_and_launch]')",
                     std::chrono::seconds(20)));
  REQUIRE(b.screenshot(artifact("console-workflows.png")));

  // Everything came from this server (fetches and the stream included), and
  // its files tell the browser to load nothing from elsewhere.
  CHECK(b.eval("performance.getEntriesByType('resource').length > 10"
               " && performance.getEntriesByType('resource')"
               "   .every((e) => new URL(e.name).origin === location.origin)")
        == true);
  httplib::Client c("127.0.0.1", s.port);
  auto js_file = c.Get("/ui/app.js");
  REQUIRE(js_file);
  CHECK(js_file->get_header_value("Content-Security-Policy").find("default-src 'self'")
        != std::string::npos);
  CHECK(js_file->get_header_value("Content-Type").find("javascript") != std::string::npos);

  // The token stayed out of URLs and logs.
  CHECK(b.eval("location.href.includes(" + js(console_token) + ")") == false);
  CHECK(s.srv->err.find(console_token) == std::string::npos);
}

TEST_CASE("the console of a server without tokens asks for none", "[console]") {
  if (!have_chromium())
    return;
  console_session s(false);
  auto& b = *s.b;
  INFO(s.srv->err);
  // Straight to the workflows page, as a bookmark would: it needs no
  // stream, yet the top bar says live, and nothing asks for a token.
  b.navigate(s.base + "/ui/#/workflows");
  REQUIRE(b.wait_for("!!document.querySelector('[data-workflow=build_and_launch]')",
                     std::chrono::seconds(20)));
  CHECK(b.wait_for("document.getElementById('live').classList.contains('on')",
                   std::chrono::seconds(20)));
  CHECK(b.wait_for("document.getElementById('token-button').hidden", std::chrono::seconds(10)));
  CHECK(b.eval("document.getElementById('token-dialog').open") == false);

  // Pages of 25: "Load more" brings the rest.
  for (int i = 0; i < 26; ++i)
    s.start("demo", R"({"name":"n)" + std::to_string(i) + R"("})");
  b.eval("location.hash = '#/operations'; true");
  REQUIRE(b.wait_for("document.querySelectorAll('#operations tr[data-id]').length === 25"
                     " && !document.querySelector('.panel-foot button').hidden",
                     std::chrono::seconds(20)));
  b.eval("document.querySelector('.panel-foot button').click(); true");
  CHECK(b.wait_for("document.querySelectorAll('#operations tr[data-id]').length === 26"
                   " && document.querySelector('.panel-foot button').hidden",
                   std::chrono::seconds(20)));
}
