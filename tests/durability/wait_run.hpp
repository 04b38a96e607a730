#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/event.hpp"
#include "engine/store.hpp"
#include "tests/durability/piped_child.hpp"

/// What the signal and watched-task durability tests share: a directory
/// per run and the wait child (tests/durability/wait_child.cpp) on a store.
namespace stepwise::test {

class wait_run {
public:
  /// A fresh directory under /tmp; the store is SQLite in it unless
  /// `store_uri` names another.
  explicit wait_run(std::string store_uri = "");
  ~wait_run();

  wait_run(const wait_run&) = delete;
  wait_run& operator=(const wait_run&) = delete;

  /// Starts a wait child (`extra`: its optional arguments) and waits for it
  /// to serve; returns null when it does not.
  std::unique_ptr<piped_child> spawn(const std::vector<std::string>& extra = {}) const;

  /// Creates `dir/name` (a gate to open, a task to complete).
  void touch(const std::string& name) const;

  /// The file driver's poll lines (tests/durability/file_driver.hpp).
  std::vector<std::string> polls() const;

  /// Opens the store (once every child has ended).
  store_ptr open() const;

  const std::string& dir() const {
    return dir_;
  }

private:
  std::string dir_;
  std::string store_uri_;
};

/// How many events of `type` (and of `step`, unless empty) the operation
/// has in `log`.
size_t count(const std::vector<event>& log, const std::string& id, event_type type,
             const std::string& step = "");

/// Returns whether the log's sequence numbers have no gap and every
/// operation in it has at most one terminal event.
bool well_formed(const std::vector<event>& log);

} // namespace stepwise::test
