#include "engine/log.hpp"

#include <cstdio>
#include <string>

namespace stepwise {

void write_log(const log_sink& sink, log_level x, std::string_view text) {
  if (sink) {
    sink(x, text);
    return;
  }
  // One write per line, so that lines of several threads do not interleave.
  std::string line = "stepwise: ";
  line.append(text);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

} // namespace stepwise
