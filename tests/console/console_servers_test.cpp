// The console's Servers page, in a real browser: the servers sharing the
// store (this one alone, on SQLite) with where each answers.

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

TEST_CASE("the console lists the servers sharing the store", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  s.sign_in();
  b.eval("document.querySelector('[data-nav=servers]').click(); true");
  REQUIRE(b.wait_for("document.querySelectorAll('#servers tbody tr').length === 1",
                     std::chrono::seconds(20)));
  auto text = b.eval("document.querySelector('#servers tbody tr').innerText");
  INFO(boost::json::serialize(text));
  CHECK(b.eval("document.querySelector('#servers tbody tr').innerText.includes('this one')")
        == true);
  CHECK(
    b.eval("document.querySelector('#servers tbody tr').innerText.includes('alone on its store')")
    == true);
  // Listening on port 0, it cannot say where it answers before it binds.
  CHECK(b.eval("document.querySelector('#servers tbody tr').innerText.includes('not known')")
        == true);
  REQUIRE(b.screenshot(artifact("console-servers.png")));
}
