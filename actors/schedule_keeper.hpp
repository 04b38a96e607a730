#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "actors/sleeper_set.hpp"
#include "engine/schedule.hpp"

namespace stepwise {

/// One schedule as the keeper holds it.
struct schedule_entry {
  /// The stored copy (revision 0: its create is not written yet).
  schedule s;
  /// A write, a fire or a read for it is in flight: requests wait in
  /// `held`, and nothing else starts.
  bool busy = false;
  std::vector<std::function<void()>> held;
  /// What is known of the operation of the last fire (overlap policies).
  enum class last_op : uint8_t { unknown, running, ended };
  last_op last = last_op::unknown;
  /// The last operation reported ended (a read may answer later than it).
  std::string ended_op;
  /// The fire time for which the last operation was last read: a fire
  /// is skipped or queued only after the store says it still runs (the
  /// dispatcher's word of its end may be on its way).
  std::optional<time_point> checked_for;
  /// A fire of overlap policy `queue` waiting for the last operation.
  std::optional<time_point> queued;
  /// The fire in flight, and the client's promise when it is a trigger.
  std::optional<time_point> firing;
  std::optional<caf::typed_response_promise<start_result>> trigger;
  /// A fire or a read refused for a reason that passes (a drain, a failing
  /// store): nothing is tried again before then, or the keeper and the
  /// dispatcher would pass the refusal back and forth as fast as they can.
  std::optional<time_point> retry_at;
};

/// A schedule write waiting for its commit.
struct schedule_write {
  std::string id;
  std::shared_ptr<const schedule> written;
  bool deleting = false;
  /// Runs once the entry holds what the store holds (none: it was written).
  std::function<void(caf::error)> done;
};

/// The state of the schedule keeper: one actor per engine that holds every
/// schedule and one timer for all of them (an idle schedule is an entry
/// in `due`, no actor and no thread). Each fire asks the dispatcher to
/// start an operation with the fire's idempotency key, then writes that
/// the fire is handled: a restart between the two starts the same key
/// again and gets the same operation, so a fire happens once.
struct schedule_keeper_state {
  static inline const char* name = "stepwise.schedules";

  runtime_ptr rt;
  internal_dispatcher_actor dispatcher;
  std::unordered_map<std::string, schedule_entry> entries;
  /// When each schedule is looked at next.
  sleeper_set due;
  std::optional<time_point> armed;
  uint64_t wake_gen = 0;
  uint64_t next_tag = 0;
  std::unordered_map<uint64_t, schedule_write> writes;
  /// Writes that met a newer revision, by schedule, until it is read again.
  std::unordered_map<std::string, schedule_write> rereads;
  /// Operations whose state is being read, and the schedule asking.
  std::unordered_map<std::string, std::string> checking;
  /// The writer takes nothing more (the engine stops): nothing fires.
  bool stopped = false;
  /// Whether the first load is in; requests before it wait here.
  bool loaded = false;
  std::vector<std::function<void()>> before_load;
  /// A read of every schedule is on its way, another is wanted after it
  /// (a notification came meanwhile), the refresh timer is set.
  bool reading = false;
  bool read_again = false;
  bool refresh_armed = false;
  /// What waits for the read on its way, and for the one after it.
  std::vector<std::function<void()>> after_read;
  std::vector<std::function<void()>> after_next_read;
};

using keeper_ptr = schedule_keeper_actor::stateful_pointer<schedule_keeper_state>;

/// Spawned by `launch_runtime`: loads the schedules, then keeps them.
schedule_keeper_actor::behavior_type schedule_keeper(keeper_ptr self, runtime_ptr rt,
                                                     internal_dispatcher_actor dispatcher);

// -- firing (schedule_keeper.cpp) --------------------------------------------

/// Decides what `id` does now: wait (its timer), fire, or skip.
void look(keeper_ptr self, const std::string& id);

/// Starts the fire of `id` at `at` (a trigger when `trigger` is set, asked
/// for `by`; a fire of its own is by `schedule:<id>`).
void fire(keeper_ptr self, const std::string& id, time_point at,
          std::optional<caf::typed_response_promise<start_result>> trigger = std::nullopt,
          const std::string& by = {});

/// The entry is free again: runs the requests held meanwhile, then looks.
void settle(keeper_ptr self, const std::string& id);

/// Runs `f` with the entry of `id` once it is loaded and free (null: no
/// such schedule).
/// On a store that processes share, `f` gets null only once the
/// schedules were read after the call: another process may have just
/// written it (a client's create through one server, its replace through
/// the next).
void when_free(keeper_ptr self, const std::string& id, std::function<void(schedule_entry*)> f,
               bool read_since = false);

/// Reads every schedule, then calls `then` (if any); one read at a time.
void read_all(keeper_ptr self, std::function<void()> then = {});

/// Returns what a client sees of `e`: secret input values as `"***"`.
schedule_view view_of(const schedule_entry& e);

/// Returns the owner that the secret values of schedule `id`'s input are
/// sealed for (the fires' operations seal them again for themselves).
std::string sealed_owner(const std::string& id);

// -- writes (schedule_keeper_writes.cpp) --------------------------------------

/// Writes `next` (revision and update time set here) with `events`; the
/// entry is busy until `done` runs.
void write(keeper_ptr self, const std::string& id, schedule next, std::vector<event> events,
           std::function<void(caf::error)> done);

/// Deletes `id`; `done` runs once it is gone (the entry with it).
void erase(keeper_ptr self, const std::string& id, std::vector<event> events,
           std::function<void(caf::error)> done);

/// Returns the `schedule_changed` event of a client's `change` of `id`.
event schedule_change(keeper_ptr self, const std::string& id, const char* change,
                      const std::string& by);

/// Drops the entry of `id` (deleted); the requests it held find none.
void forget(keeper_ptr self, const std::string& id);

/// Drops the entry of `id`; returns the requests it held, for the caller
/// to run once it answered its own.
std::vector<std::function<void()>> drop_entry(keeper_ptr self, const std::string& id);

void on_written(keeper_ptr self, const commit_ack& ack);

/// A full load (at start; on a shared store, every few seconds) or the
/// read of one schedule after a write met a newer revision.
void on_loaded(keeper_ptr self, loaded_schedules& res);

// -- requests (schedule_keeper_requests.cpp) ---------------------------------

caf::result<schedule_result> on_create(keeper_ptr self, schedule& s, const std::string& by);
caf::result<schedule_view> on_replace(keeper_ptr self, schedule& s, const std::string& by);
caf::result<schedule_view> on_get(keeper_ptr self, const std::string& id);
caf::result<std::vector<schedule_view>> on_list(keeper_ptr self);
caf::result<schedule_view> on_delete(keeper_ptr self, const std::string& id, const std::string& by);
caf::result<schedule_view> on_pause(keeper_ptr self, const std::string& id, bool paused,
                                    const std::string& by);
caf::result<start_result> on_trigger(keeper_ptr self, const std::string& id, const std::string& by);

} // namespace stepwise
