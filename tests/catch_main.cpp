// The tests' main: Catch2's, after what every stepwise program does first
// (the PostgreSQL tests open their stores by URI).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "storage/postgresql.hpp"

int main(int argc, char** argv) {
  stepwise::use_postgresql();
  return Catch::Session().run(argc, argv);
}
