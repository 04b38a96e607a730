#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/store.hpp"

namespace stepwise::test {

/// A named way to get a fresh, empty store.
using store_factory = std::function<store_ptr()>;

/// Returns every backend the store suite runs against: SQLite always (a
/// new temporary file per call of the factory), and PostgreSQL when the
/// environment variable `STEPWISE_TEST_PG_URI` holds a connection URI.
std::vector<std::pair<std::string, store_factory>> test_backends();

/// A temporary directory, removed with its content on destruction.
class temp_dir {
public:
  temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir();

  /// Returns the path of `name` inside the directory.
  std::string file(const std::string& name) const;

private:
  std::string path_;
};

} // namespace stepwise::test
