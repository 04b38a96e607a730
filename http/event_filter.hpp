#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "engine/event.hpp"
#include "http/errors.hpp"
#include "http/query.hpp"

namespace stepwise::http {

/// Which operations a reader of the log follows by workflow and labels
/// (`?workflow=W&label=k=v`). An event names only its operation, so each
/// operation is read once (both are fixed at its creation) and the answer
/// kept; `resolve` reads, blocking, and `matches` only looks.
class op_matcher {
public:
  op_matcher(std::string workflow, std::vector<std::pair<std::string, std::string>> labels);

  /// Reads the operations of `items` not seen yet. Returns the error of a
  /// read that failed, or none.
  std::optional<api_error> resolve(engine& eng, const std::vector<event>& items);

  /// Whether operation `id` is one followed; false before `resolve` saw it.
  bool matches(const std::string& id) const;

private:
  bool wanted(const operation& op) const;

  std::string workflow_;
  std::vector<std::pair<std::string, std::string>> labels_;
  mutable std::mutex mtx_;
  std::unordered_map<std::string, bool> seen_;
};

/// The events a reader of the log asked for (`?type=a,b`): every event when
/// it named no type. A reader waiting for operations to end takes one frame
/// per operation instead of a dozen.
struct event_filter {
  /// Bit `t` set: events of type `t` are wanted.
  uint32_t types = ~uint32_t{0};
  /// Only this operation's events (`?operation=ID`; empty: every one's).
  std::string operation;
  /// Only events of these operations (null: every one's). Shared by the
  /// copies of one request's filter.
  std::shared_ptr<op_matcher> ops;

  bool wants(const event& e) const {
    return ((types >> static_cast<unsigned>(e.type)) & 1U) != 0
           && (operation.empty() || e.operation_id == operation)
           && (!ops || ops->matches(e.operation_id));
  }

  /// Drops the unwanted events of `items`.
  void keep_wanted(std::vector<event>& items) const;
};

/// Reads the query's `type` (event type names separated by commas),
/// `operation`, `workflow` and `label` (repeated). Returns the 400 naming
/// what is wrong, or none.
std::optional<api_error> read_event_filter(const query& q, event_filter& out);

} // namespace stepwise::http
