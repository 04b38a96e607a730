#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "engine/operation.hpp"

/// Child operations: a step starts them (`step_context::start_child`), a
/// wait step waits for them (`await_children`), and a parent's cancel
/// reaches them. A child is an ordinary operation (its workflow's limits
/// and keys apply) whose `parent_id` names its parent and whose
/// idempotency key names its slot, `child:PARENT:STEP:KEY`: the same step
/// run again (after a crash, a retry) asks for the same slots and gets the
/// same children, never a second one.
namespace stepwise {

/// What a parent's cancel does to the unfinished children of one of its
/// steps.
enum class child_policy : uint8_t {
  /// They are canceled too.
  cancel,
  /// They run on.
  abandon,
};

/// A child a step asked for. Started when the step completes (`done`),
/// before its result is stored; a step that retries or fails starts none.
struct child_request {
  /// The child's slot within the step: the call's index within the
  /// attempt ("0", "1", ...) unless the step named it.
  std::string key;
  std::string workflow;
  /// Empty: the newest registered version.
  std::optional<int32_t> version;
  boost::json::object input;
};

/// Returns the idempotency key of slot `key` of step `step` of `parent`:
/// `child:PARENT:STEP:KEY`, with `%` and `:` of the step escaped (`%25`,
/// `%3A`), so that the key reads back unambiguously. A step sent back by a
/// repair (`step_record::run` > 0) starts children of its own, not the
/// ones its earlier run started: `STEP%23RUN`.
std::string child_key(const std::string& parent, const std::string& step, const std::string& key,
                      int32_t run = 0);

/// A child's place: its parent, the step that started it, its key.
struct child_slot {
  std::string parent;
  std::string step;
  std::string key;
  /// The step's run that started it (`step_record::run`).
  int32_t run = 0;
};

inline bool operator==(const child_slot& x, const child_slot& y) {
  return x.parent == y.parent && x.step == y.step && x.key == y.key && x.run == y.run;
}

/// Returns the slot an idempotency key names, or none when it names none.
std::optional<child_slot> parse_child_key(std::string_view idempotency_key);

/// How many of the children it watches a children wait needs ended.
enum class children_quorum : uint8_t { all, any, at_least };

/// What a children wait waits for (engine/step.hpp, `await_children`).
struct children_wait {
  /// The step whose children it watches; empty: every child of the
  /// operation.
  std::string of_step;
  children_quorum quorum = children_quorum::all;
  /// With `at_least`: how many.
  size_t n = 0;
  /// A child that failed or was canceled counts as ended; otherwise it
  /// fails the wait as soon as it is seen.
  bool accept_failures = false;
};

/// A child as a children wait sees it (read from the store).
struct child_summary {
  std::string id;
  /// The step that started it and its key (from its idempotency key).
  std::string step;
  std::string key;
  /// The step's run that started it: a child of an earlier run is no
  /// longer watched.
  int32_t run = 0;
  op_state state = op_state::pending;
  /// As shown to callers: secret values masked.
  boost::json::object data;
  std::string error;
};

/// Returns the summary of child `op` (its data as given: the caller shows
/// it masked), or none when it is not a child slot.
std::optional<child_summary> summary_of(const operation& op);

/// Returns the children of `all` that `w` watches: of its step (or any),
/// and started by the current run of their step in `op`.
std::vector<child_summary> watched_children(const children_wait& w, const operation& op,
                                            std::vector<child_summary> all);

/// What a children wait makes of the children it watches.
struct children_verdict {
  enum class kind : uint8_t {
    /// Not yet: `need` more must end.
    waiting,
    /// Enough ended.
    met,
    /// It cannot be met: a child failed (and failures are not accepted),
    /// or fewer children exist than it needs. `error` says which.
    failed,
  };
  kind what = kind::waiting;
  size_t need = 0;
  std::string error;
};

/// Judges `watched` against `w`.
children_verdict judge(const children_wait& w, const std::vector<child_summary>& watched);

/// Returns `{id, state, data, error}` of each of `watched`, by step, then
/// key: what a children wait leaves in `data.children_results`.
boost::json::object children_results(const std::vector<child_summary>& watched);

/// Returns how many of `children` are in each state (`{"total": N,
/// "succeeded": ...}`; states with none are left out): the `children`
/// field of an operation's API form.
boost::json::object children_counts(const std::vector<operation>& children);

} // namespace stepwise
