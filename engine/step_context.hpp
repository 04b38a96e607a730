#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <boost/json.hpp>
#include <caf/expected.hpp>

#include "engine/children.hpp"
#include "engine/event.hpp"
#include "engine/key_ring.hpp"
#include "engine/operation.hpp"
#include "engine/stop.hpp"
#include "engine/time.hpp"

namespace stepwise {

class clock;

/// A value that lives only while the operation runs in this process (a
/// provisioning override, say): never stored, empty again after a restart.
struct transient_value {
  boost::json::value value;
  /// Secret values never appear in logs, events, API output or errors.
  bool secret = false;
};

inline bool operator==(const transient_value& x, const transient_value& y) {
  return x.secret == y.secret && x.value == y.value;
}

inline bool operator!=(const transient_value& x, const transient_value& y) {
  return !(x == y);
}

/// Transient data of one operation, by key.
using transient_map = std::map<std::string, transient_value>;

/// A provisioning override (as a broker's `InputCreator.SetOverrides` sets them): a
/// configuration value for one component of what is being created (a
/// token, a URL). Kept among the transient values, so it is never stored;
/// the steps that add overrides are marked `producing_transient()` and run
/// again whenever the operation goes on in a new actor.
struct override_value {
  std::string component;
  std::string key;
  std::string value;
  /// Secret overrides never appear in logs, events, API output or errors.
  bool secret = false;
};

/// Returns the overrides among `transient`, by component, then key.
std::vector<override_value> overrides_of(const transient_map& transient);

/// An event a step asks to append to the log (e.g.
/// `infrastructure_task_completed`), with its type-specific fields.
struct emitted_event {
  event_type type = event_type::infrastructure_task_completed;
  boost::json::object extra;
};

/// What a step sees when it runs. Owned by the worker for the duration of
/// one attempt; the operation actor does not touch it meanwhile.
class step_context {
public:
  step_context(std::string operation_id, std::string step_name, int32_t attempt,
               std::shared_ptr<const boost::json::object> input, boost::json::object data,
               transient_map transient, std::shared_ptr<const stepwise::clock> clk,
               stop_token stop = {}, std::shared_ptr<const key_ring> keys = nullptr)
    : operation_id_(std::move(operation_id)),
      step_name_(std::move(step_name)),
      attempt_(attempt),
      input_(std::move(input)),
      data_(std::move(data)),
      transient_(std::move(transient)),
      clock_(std::move(clk)),
      stop_(std::move(stop)),
      keys_(std::move(keys)) {
    // nop
  }

  /// Returns the id of the running operation.
  const std::string& operation_id() const {
    return operation_id_;
  }

  /// Returns the name of the running step.
  const std::string& step_name() const {
    return step_name_;
  }

  /// Returns a key that is the same for every attempt of this step of this
  /// operation: pass it to external systems to make the step idempotent.
  std::string idempotency_key() const {
    return operation_id_ + ":" + step_name_;
  }

  /// Returns the attempt number, 1 for the first attempt.
  int32_t attempt() const {
    return attempt_;
  }

  /// Returns the operation's input (read-only), secret values included:
  /// opened for this attempt, sealed in the store.
  const boost::json::object& input() const {
    return *input_;
  }

  /// Returns the shared input (immutable: no copy needed to keep it).
  const std::shared_ptr<const boost::json::object>& input_ptr() const {
    return input_;
  }

  /// Returns the persisted data; changes are stored with the checkpoint.
  boost::json::object& data() {
    return data_;
  }

  const boost::json::object& data() const {
    return data_;
  }

  /// Returns the transient data; never stored.
  transient_map& transient() {
    return transient_;
  }

  /// Sets a transient value (an override), optionally flagged secret.
  void set_transient(std::string key, boost::json::value v, bool secret = false) {
    transient_[std::move(key)] = transient_value{std::move(v), secret};
  }

  /// Adds override `key` of `component` (replacing one with the same
  /// component and key). Mark the step `producing_transient()`: like every
  /// transient value, the override is gone after a restart, and that step
  /// adds it again.
  void add_override(const std::string& component, const std::string& key, std::string value,
                    bool secret = false);

  /// Returns the overrides added so far in this run, by component, then key.
  std::vector<override_value> overrides() const {
    return overrides_of(transient_);
  }

  // -- secrets kept in the data ----------------------------------------------

  /// Keeps `v` in the persisted data under `key`, sealed with the engine's
  /// key ring: stored encrypted, shown as `"***"`, read back with
  /// `secret(key)`. Fails only when sealing fails.
  [[nodiscard]] caf::expected<void> keep_secret(const std::string& key,
                                                const boost::json::value& v);

  /// Returns the secret kept under `key` (none when there is none). A
  /// value whose key is not in the key ring is an `errc::secret_key` error
  /// naming the key id.
  [[nodiscard]] caf::expected<std::optional<boost::json::value>> secret(const std::string& key);

  /// Returns `op` (another operation, read from the store) with the secret
  /// values of its input and data opened: what a step needs to act on what
  /// that operation made (deprovisioning reads the location's credentials
  /// that provisioning was given).
  [[nodiscard]] caf::expected<operation> open_secrets(operation op);

  /// Returns the engine's current time (virtual in tests).
  time_point now() const;

  /// Returns the engine clock's reading that never goes back (what an
  /// attempt's duration is measured with).
  duration monotonic() const;

  /// Returns the attempt's stop request: raised when the engine abandons
  /// the attempt (timeout, cancel, pause, deadline). A step that runs long
  /// should check it and end early; its result no longer counts then.
  const stop_token& stop() const {
    return stop_;
  }

  /// Appends an event to the operation's log in the same commit as this
  /// attempt's result, so it is recorded exactly once per attempt whose
  /// result is recorded (an attempt cut off by a crash or a timeout
  /// records nothing). String values equal to a secret are masked.
  void emit(event_type type, boost::json::object extra) {
    emitted_.push_back({type, std::move(extra)});
  }

  // -- child operations -------------------------------------------------------

  /// Asks for an operation of `workflow` (its newest version) with `input`
  /// as a child of this one, in slot `key` of this step (empty: the call's
  /// index within the attempt, "0", "1", ...), and returns the slot's key.
  /// The children are started when the attempt completes (`done`), before
  /// its result is stored, and their ids go to `data.children[STEP][KEY]`;
  /// an attempt that retries or fails starts none. The step run again
  /// (after a crash, a retry) gets the same child for the same slot, never
  /// a second one, so a slot must always ask for the same child. A key
  /// used twice in one attempt fails the attempt.
  std::string start_child(std::string workflow, boost::json::object input, std::string key = {});

  /// As above, for version `version` of the workflow.
  std::string start_child(std::string workflow, int32_t version, boost::json::object input,
                          std::string key = {});

  // -- handing state back to the engine -------------------------------------

  boost::json::object take_data() {
    return std::move(data_);
  }

  transient_map take_transient() {
    return std::move(transient_);
  }

  std::vector<emitted_event> take_emitted() {
    return std::move(emitted_);
  }

  std::vector<child_request> take_children() {
    child_keys_.clear();
    return std::move(children_);
  }

  /// Returns why the children asked for cannot be started (a key used
  /// twice), or empty.
  const std::string& children_fault() const {
    return children_fault_;
  }

  /// Returns the string forms of the secrets this attempt kept or opened,
  /// to mask in its error message.
  std::vector<std::string> take_revealed() {
    return std::move(revealed_);
  }

private:
  std::string operation_id_;
  std::string step_name_;
  int32_t attempt_;
  std::shared_ptr<const boost::json::object> input_;
  boost::json::object data_;
  transient_map transient_;
  std::vector<emitted_event> emitted_;
  // Shared: an asynchronous call may be completed after its engine stopped.
  std::shared_ptr<const stepwise::clock> clock_;
  stop_token stop_;
  std::shared_ptr<const key_ring> keys_;
  std::vector<std::string> revealed_;
  std::vector<child_request> children_;
  /// The keys of `children_`: a step may ask for many thousands.
  std::unordered_set<std::string> child_keys_;
  std::string children_fault_;
};

} // namespace stepwise
