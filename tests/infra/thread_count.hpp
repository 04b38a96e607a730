#pragma once

#include <fstream>
#include <string>

namespace stepwise::test {

/// The threads of this process, from /proc/self/status (-1: unknown).
inline int thread_count() {
  std::ifstream in{"/proc/self/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0)
      return std::stoi(line.substr(8));
  return -1;
}

} // namespace stepwise::test
