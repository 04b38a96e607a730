// The operations page's search box: labels, an idempotency key
// and a creation time range narrow the list to exactly the matching
// operations, through the list's query parameters.

#include <catch2/catch.hpp>

#include "tests/console/console_session.hpp"

using namespace stepwise::test;

namespace {

std::string start_labeled(console_session& s, const std::string& extra) {
  auto c = s.api();
  auto r = to_reply(c.Post("/api/v1/operations", R"({"workflow":"demo","input":{},)" + extra + "}",
                           "application/json"));
  REQUIRE(r.status == 201);
  return std::string(r.json.at("id").as_string());
}

} // namespace

TEST_CASE("the console's search box finds operations by labels, key and time", "[console]") {
  if (!have_chromium())
    return;
  console_session s;
  auto& b = *s.b;
  INFO(s.srv->err);
  auto a = start_labeled(s, R"("labels":{"runtime":"rt-1","location":"dc1"})");
  start_labeled(s, R"("labels":{"runtime":"rt-2","location":"dc1"})");
  auto c =
    start_labeled(s, R"("labels":{"runtime":"rt-1","location":"dc2"},"idempotency_key":"k-c")");
  s.sign_in();
  REQUIRE(b.wait_for("document.querySelectorAll('#operations tr[data-id]').length === 3",
                     std::chrono::seconds(20)));
  auto search = [&](const std::string& text) {
    b.eval("{ const i = document.getElementById('filter-search'); i.value = " + js(text)
           + "; i.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); } true");
  };
  auto rows = "[...document.querySelectorAll('#operations tr[data-id]')].map((r) => r.dataset.id)"
              ".join(',')";
  search("runtime=rt-1 location=dc1");
  REQUIRE(b.wait_for(std::string(rows) + " === " + js(a), std::chrono::seconds(10)));
  CHECK(b.eval("location.hash") == "#/operations?label=runtime%3Drt-1&label=location%3Ddc1");
  // The box keeps the search after the page is drawn again.
  CHECK(b.eval("document.getElementById('filter-search').value") == "runtime=rt-1 location=dc1");
  REQUIRE(b.screenshot(artifact("console-search.png")));
  search("runtime=rt-1");
  REQUIRE(b.wait_for(std::string(rows) + " === " + js(c + "," + a), std::chrono::seconds(10)));
  search("key:k-c");
  REQUIRE(b.wait_for(std::string(rows) + " === " + js(c), std::chrono::seconds(10)));
  search("runtime=rt-9");
  CHECK(b.wait_for("document.querySelector('#operations .empty')?.textContent"
                   " === 'No operation matches these filters.'",
                   std::chrono::seconds(10)));
  // A time range (as the from/to fields set it): all three were created
  // before 2099, none after.
  b.eval("location.hash = '#/operations?before=2099-01-01T00:00:00.000Z'; true");
  REQUIRE(b.wait_for("document.querySelectorAll('#operations tr[data-id]').length === 3",
                     std::chrono::seconds(10)));
  CHECK(b.eval("document.getElementById('filter-before').value") != "");
  b.eval("location.hash = '#/operations?after=2099-01-01T00:00:00.000Z'; true");
  CHECK(b.wait_for("!!document.querySelector('#operations .empty')", std::chrono::seconds(10)));
}
