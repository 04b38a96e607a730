#include "tests/faults/pg_cluster.hpp"

#include <cstdlib>

#include <catch2/catch.hpp>

#include "tests/faults/fault_support.hpp"

namespace stepwise::test {

pg_cluster::pg_cluster() {
  // The URI is the last line (progress comes before it).
  auto out = run_command(tool("start") + " </dev/null");
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  uri_ = out.substr(out.rfind('\n') + 1);
  INFO(uri_);
  REQUIRE(uri_.rfind("postgresql://", 0) == 0);
}

pg_cluster::~pg_cluster() {
  run_command(tool("stop") + " '" + uri_ + "'");
}

std::string pg_cluster::tool(const std::string& verb) const {
  return source_root() + "/tools/pg-test-cluster " + verb;
}

void pg_cluster::crash() {
  auto out = run_command(tool("crash") + " '" + uri_ + "'");
  INFO(out);
  REQUIRE(out.find("crashed") != std::string::npos);
}

void pg_cluster::restart() {
  auto out = run_command(tool("restart") + " '" + uri_ + "'");
  INFO(out);
  REQUIRE(out.find("restarted") != std::string::npos);
}

int pg_cluster::terminate_backends() {
  auto out = run_command("psql '" + uri_
                         + "' -Atc \"SELECT count(pg_terminate_backend(pid)) "
                           "FROM pg_stat_activity WHERE datname = current_database() "
                           "AND pid <> pg_backend_pid()\"");
  INFO(out);
  return std::atoi(out.c_str());
}

} // namespace stepwise::test
