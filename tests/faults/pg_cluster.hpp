#pragma once

#include <string>

namespace stepwise::test {

/// A PostgreSQL cluster of one test (tools/pg-test-cluster), which it may
/// crash and restart without disturbing the others'; removed at
/// destruction.
class pg_cluster {
public:
  pg_cluster();
  ~pg_cluster();

  pg_cluster(const pg_cluster&) = delete;
  pg_cluster& operator=(const pg_cluster&) = delete;

  const std::string& uri() const {
    return uri_;
  }

  /// Stops the server as a crash does (`pg_ctl -m immediate`).
  void crash();

  /// Starts it again on its port.
  void restart();

  /// Ends every other session of the database (`pg_terminate_backend`);
  /// returns how many it ended.
  int terminate_backends();

private:
  std::string tool(const std::string& verb) const;
  std::string uri_;
};

} // namespace stepwise::test
