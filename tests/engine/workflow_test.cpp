// engine/workflow and engine/registry: definitions, their checks and order.
#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/registry.hpp"
#include "tests/engine/engine_fixtures.hpp"

using namespace stepwise;
using namespace std::chrono_literals;
using test::noop;
using test::t0;

TEST_CASE("registration checks definitions and orders steps by weight", "[engine]") {
  registry reg;
  auto bad = reg.add(workflow("w", 1).step(1, noop("a")).step(2, noop("a")));
  REQUIRE(!bad);
  CHECK(code_of(bad.error()) == errc::invalid_definition);
  CHECK(message_of(bad.error()).find("'a' is used twice") != std::string::npos);
  CHECK(!reg.add(workflow("w", 1)));
  CHECK(!reg.add(workflow("", 1).step(1, noop("a"))));
  CHECK(!reg.add(workflow("w", 1).step(0, noop("a"))));
  CHECK(!reg.add(workflow("w", 1).step(1, noop("a")).secret("no-slash")));
  REQUIRE(reg.add(workflow("w", 1).step(20, noop("b")).step(10, noop("a")).step(20, noop("c"))));
  REQUIRE(reg.add(workflow("w", 2).step(1, noop("x"))));
  auto dup = reg.add(workflow("w", 2).step(1, noop("x")));
  CHECK(!dup);
  auto v1 = reg.find("w", 1);
  REQUIRE(v1);
  std::vector<std::string> names;
  for (auto& s : v1->steps())
    names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"a", "b", "c"});
  CHECK(reg.find("w")->version() == 2);
  CHECK(reg.find("nope") == nullptr);
  CHECK(reg.find("w", 3) == nullptr);
}

TEST_CASE("a definition is in execution order before it is registered", "[engine]") {
  auto wf = workflow("w", 1)
              .step(30, noop("c"))
              .step(10, noop("a"))
              .step(20, noop("b"))
              .step(10, noop("a2"));
  std::vector<std::string> names;
  for (auto& s : wf.steps())
    names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"a", "a2", "b", "c"});
  CHECK(wf.index_of("b") == 2);
}
