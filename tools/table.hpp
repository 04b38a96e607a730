#pragma once

#include <string>
#include <vector>

namespace stepwise::tools {

/// A plain-text table with a header row, columns padded to their widest
/// cell, for terminal output of the CLI.
class table {
public:
  explicit table(std::vector<std::string> header);

  void add(std::vector<std::string> row);

  /// Returns the table, one line per row, each ending in a newline.
  std::string render() const;

  bool empty() const {
    return rows_.empty();
  }

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// Returns `s` cut to `max` characters (with "..." when cut) and with line
/// breaks replaced by spaces.
std::string cell(std::string s, size_t max = 60);

} // namespace stepwise::tools
