#include "tests/shell.hpp"

#include <unistd.h>

#include <cstdio>

#include <catch2/catch.hpp>

namespace stepwise::test {

void exec_args(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

std::string run_command(const std::string& command) {
  std::string out;
  auto pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    out.append(buf, n);
  ::pclose(pipe);
  return out;
}

} // namespace stepwise::test
