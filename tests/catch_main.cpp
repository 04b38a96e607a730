// The Catch2 main of every test executable: compiled once per executable,
// so test files only include <catch2/catch.hpp>.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
