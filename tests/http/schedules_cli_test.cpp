// `stepwise schedules ...` (the real binary) against the gateway in
// process: what a newcomer types and reads, and what it says when a value
// is wrong.

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/http/fixture.hpp"
#include "tests/http/serve_child.hpp"

using namespace stepwise::test;

namespace {

bool says(const std::string& out, const std::string& what) {
  return out.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("stepwise schedules creates, lists, edits, pauses, fires and deletes",
          "[http][schedules][cli]") {
  http_fixture fx;
  auto cli = [&](const std::string& args) {
    return run_cli("schedules " + args + " --url http://127.0.0.1:" + std::to_string(fx.port()));
  };
  CHECK(says(cli("list"), "no schedules (make one: stepwise schedules create --help)"));
  auto made = cli("create --id nightly --workflow quick --cron '0 3 * * *' "
                  "--time-zone Europe/Berlin --input '{\"n\":1}'");
  INFO(made);
  CHECK(says(made, "created schedule nightly: 0 3 * * * (Europe/Berlin), workflow quick; next fire "
                   "20"));
  CHECK(says(cli("create --id nightly --workflow quick --cron '0 3 * * *' "
                 "--time-zone Europe/Berlin --input '{\"n\":1}'"),
             "unchanged (the same definition exists): schedule nightly"));
  CHECK(says(cli("create --id nightly --workflow quick --every 1h"),
             "error: 409 idempotency_conflict"));

  // Mistakes are said in the flags' words, or as the server names the field.
  CHECK(says(cli("create --workflow quick --every 1m"), "error: give the schedule an --id"));
  CHECK(says(cli("create --id x --every 1m"), "error: --workflow is required"));
  CHECK(says(cli("create --id x --workflow quick"), "error: --cron EXPR or --every DURATION"));
  CHECK(says(cli("create --id x --workflow quick --every 1m --cron '* * * * *'"),
             "error: give --cron or --every, not both"));
  CHECK(says(cli("create --id x --workflow quick --every 1m --input '[1]'"),
             "error: --input must be a JSON object"));
  CHECK(says(cli("create --id x --workflow quick --every soon"),
             "error: 400 invalid_argument: field 'every' must be a duration"));
  CHECK(says(cli("create --id x --workflow quick --every 1m --overlap never"),
             "field 'overlap' must be one of skip, queue, allow"));
  CHECK(says(cli("create --id x --workflow nope --every 1m"), "error: 400 unknown_workflow"));
  CHECK(says(cli("create --id x --workflow quick --every 1m --version two"),
             "error: --version must be a number or 'newest'"));

  auto listed = cli("list");
  INFO(listed);
  CHECK(says(listed, "ID       WORKFLOW  SCHEDULE"));
  CHECK(says(listed, "NEXT FIRE"));
  CHECK(says(listed, "nightly  quick     0 3 * * * (Europe/Berlin)"));
  CHECK(says(listed, "0/0"));
  CHECK(says(cli("list --json"), R"("items":[{"id":"nightly")"));

  auto edited = cli("edit nightly --every 2h");
  INFO(edited);
  CHECK(says(edited, "updated schedule nightly: every 2h, workflow quick"));
  CHECK(says(cli("show nightly"), "{\"n\":1}"));
  CHECK(says(cli("pause nightly"), "paused schedule nightly: no fire until stepwise schedules "
                                   "resume nightly"));
  auto paused = cli("show nightly");
  INFO(paused);
  CHECK(says(paused, "- (paused)"));
  CHECK(says(paused, "no operations yet (stepwise schedules trigger nightly fires it now)"));
  CHECK(says(cli("resume nightly"), "resumed schedule nightly: every 2h"));

  auto fired = cli("trigger nightly");
  INFO(fired);
  auto at = fired.find("started operation ");
  REQUIRE(at != std::string::npos);
  auto op = fired.substr(at + 18, fired.find(' ', at + 18) - at - 18);
  CHECK(says(fired, "follow it: stepwise ops show " + op));
  CHECK(fx.finish(op) == "succeeded");
  auto shown = cli("show nightly");
  INFO(shown);
  CHECK(says(shown, "last operations:"));
  CHECK(says(shown, op + "  succeeded"));
  CHECK(says(cli("list"), "1/0"));

  // A definition from a file; flags override its fields.
  temp_dir dir;
  std::ofstream(dir.path + "/s.json")
    << R"({"id":"from-file","workflow":"quick","input":{},"every":"5m","overlap":"queue"})";
  auto from_file = cli("create --file " + dir.path + "/s.json --every 10m --offset 90s");
  INFO(from_file);
  CHECK(says(from_file, "created schedule from-file: every 10m +1m30s"));
  CHECK(says(cli("show from-file --json"), R"("overlap":"queue")"));
  CHECK(says(cli("create --file " + dir.path + "/none.json"), "error: cannot read --file"));

  CHECK(says(cli("delete nightly"), "deleted schedule nightly (the operations it started stay)"));
  CHECK(says(cli("show nightly"), "error: 404 not_found"));
  CHECK(says(cli("trigger nightly"), "error: 404 not_found"));
}

TEST_CASE("stepwise schedules edit keeps a secret input out of what it writes back",
          "[http][schedules][cli]") {
  http_fixture fx;
  auto cli = [&](const std::string& args) {
    return run_cli("schedules " + args + " --url http://127.0.0.1:" + std::to_string(fx.port()));
  };
  REQUIRE(says(cli("create --id s --workflow secretive --every 1h "
                   "--input '{\"password\":\"hunter2\"}'"),
               "created schedule s"));
  CHECK_FALSE(says(cli("show s"), "hunter2"));
  CHECK(says(cli("show s --json"), R"("password":"***")"));
  CHECK(says(cli("edit s --every 2h"), "error: the schedule's input holds secret values"));
  CHECK(says(cli("edit s --every 2h --input '{\"password\":\"hunter3\"}'"),
             "updated schedule s: every 2h"));
}
