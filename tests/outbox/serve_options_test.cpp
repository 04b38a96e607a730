// `stepwise serve --sink`: repeatable, from flags, STEPWISE_SINKS and the
// config file, with flags > environment > file.

#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/storage/store_backends.hpp"
#include "tools/serve_options.hpp"

using namespace stepwise;
using namespace stepwise::tools;

namespace {

env_reader env_with(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto i = vars.find(name);
    return i == vars.end() ? std::nullopt : std::optional<std::string>{i->second};
  };
}

std::vector<std::string> names(const serve_options& o) {
  std::vector<std::string> out;
  for (auto& s : o.sinks)
    out.push_back(s.name);
  return out;
}

} // namespace

TEST_CASE("sinks come from flags, else the environment, else the file", "[outbox][cli]") {
  test::temp_dir dir;
  auto file = dir.file("stepwise.conf");
  std::ofstream{file} << "sink = f1=webhook:http://h/1\n"
                         "sink = f2=kafka:b:9092/t,events=operation_failed\n";
  auto from_file = parse_serve_options({"--config", file}, env_with({}));
  REQUIRE(from_file);
  CHECK(names(*from_file) == std::vector<std::string>{"f1", "f2"});
  auto env = env_with({{"STEPWISE_SINKS", "e1=webhook:http://h/1;e2=webhook:http://h/2"}});
  auto from_env = parse_serve_options({"--config", file}, env);
  REQUIRE(from_env);
  CHECK(names(*from_env) == std::vector<std::string>{"e1", "e2"});
  auto from_flags = parse_serve_options(
    {"--config", file, "--sink", "a=webhook:http://h/a", "--sink=b=kafka:h1:1,h2:2/t"}, env);
  REQUIRE(from_flags);
  CHECK(names(*from_flags) == std::vector<std::string>{"a", "b"});
  CHECK(from_flags->sinks[1].kafka.brokers == "h1:1,h2:2");
  auto none = parse_serve_options({}, env_with({}));
  REQUIRE(none);
  CHECK(none->sinks.empty());
}

TEST_CASE("a bad sink names the flag and the sink", "[outbox][cli]") {
  auto bad = parse_serve_options({"--sink", "x=webhook:ftp://h"}, env_with({}));
  REQUIRE_FALSE(bad);
  auto msg = message_of(bad.error());
  CHECK(msg.find("--sink") != std::string::npos);
  CHECK(msg.find("'x'") != std::string::npos);
  auto help = serve_help();
  CHECK(help.find("--sink SPEC") != std::string::npos);
  CHECK(help.find("STEPWISE_SINKS") != std::string::npos);
}
