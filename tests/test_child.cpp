#include "tests/test_child.hpp"

#include <cstring>
#include <iostream>

#include "storage/postgresql.hpp"

namespace {

struct program {
  const char* name;
  int (*run)(int argc, char** argv);
};

constexpr program programs[] = {
  {"admission", admission_child}, {"crash", crash_child},   {"fanout", fanout_child},
  {"lease", lease_child},         {"outbox", outbox_child}, {"schedule", schedule_child},
  {"version", version_child},     {"wait", wait_child},
};

} // namespace

int main(int argc, char** argv) {
  stepwise::use_postgresql();
  if (argc >= 2)
    for (auto& p : programs)
      if (std::strcmp(argv[1], p.name) == 0)
        return p.run(argc - 1, argv + 1);
  std::cerr << "usage: test_child NAME ARGS... (tests/test_child.hpp)\n";
  return 2;
}
