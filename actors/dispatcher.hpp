#pragma once

#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/messages.hpp"
#include "actors/operation_actor.hpp"
#include "actors/protocols.hpp"
#include "actors/runtime.hpp"
#include "actors/sleeper_set.hpp"
#include "engine/progress.hpp"

namespace stepwise {

struct child_batch;

/// Where the answer to a create goes: a client's request, or (a
/// schedule's fire) the schedule keeper, as a `fire_answer`, or (a step's
/// child) its slot in the batch of the step's children.
class create_answer {
public:
  explicit create_answer(caf::typed_response_promise<start_result> rp) : rp_(std::move(rp)) {
    // nop
  }

  create_answer(schedule_keeper_actor keeper, std::string schedule_id, time_point fire_time)
    : keeper_(std::move(keeper)), schedule_id_(std::move(schedule_id)), fire_time_(fire_time) {
    // nop
  }

  create_answer(std::shared_ptr<child_batch> batch, size_t slot)
    : batch_(std::move(batch)), slot_(slot) {
    // nop
  }

  void deliver(start_result x);

  void deliver(caf::error x);

  /// The create's idempotency key was taken: a child's slot takes it as
  /// the step's earlier child (returns true); others read what took it.
  bool takes_replay();

  /// Whether this answers a child's slot.
  bool is_child() const {
    return batch_ != nullptr;
  }

private:
  caf::typed_response_promise<start_result> rp_;
  schedule_keeper_actor keeper_;
  std::string schedule_id_;
  time_point fire_time_;
  std::shared_ptr<child_batch> batch_;
  size_t slot_ = 0;
};

/// A create that its operation's actor is writing.
struct pending_create {
  create_answer rp;
  std::string id;
  /// What an admission round said of it before its actor said it is
  /// written (dispatcher_admission.cpp).
  std::optional<admission_update> seen;
};

/// A create written queued: answered with what the next admission round
/// says of it.
struct queued_answer {
  create_answer rp;
  op_snapshot op;
};

/// A start waiting for its turn to be written (`engine_config::create_window`):
/// only what was asked and where the answer goes.
struct waiting_start {
  start_request req;
  create_answer answer;
};

/// The state of the dispatcher, a directory: for each operation of this
/// process, its actor or its wake-up time (one timer for all of them). It
/// routes requests by operation id, wakes sleepers, takes creates (checks,
/// names, spawns the actor that writes it, answers) and resumes
/// operations at start and on takeover. Its former parts are actors of
/// their own: the event fan-out, the children keeper, the admission keeper
/// and the recovery pager (docs/architecture.md). (The embedding API calls
/// the whole `engine`; this is the actor at its centre.)
struct dispatcher_state {
  static constexpr size_t early_outcomes_kept = 4096;
  static inline const char* name = "stepwise.dispatcher";

  runtime_ptr rt;
  /// Operations with a live actor.
  std::unordered_map<std::string, operation_actor> live;
  /// Operations between two owners (being loaded): requests
  /// for them wait here, in order, until an actor owns the operation again.
  std::unordered_map<std::string, std::vector<std::function<void(const operation_actor&)>>> held;
  /// Passivated operations and their wake-up times.
  sleeper_set sleepers;
  /// Queued creates, as written, while they wait for admission (at most
  /// `max_queued_in_memory`): admitted, they start from here instead of
  /// being read back (dispatcher_admission.cpp).
  std::unordered_map<std::string, std::shared_ptr<const operation>> queued_ops;
  static constexpr size_t max_queued_in_memory = 10000;
  /// The due time of the armed sleeper timer and its generation.
  std::optional<time_point> armed;
  uint64_t wake_gen = 0;
  uint64_t next_tag = 0;
  /// Creates being written by their actors, by tag: at most
  /// `create_window` (a create whose key was taken keeps its place while
  /// its actor reads what took it: it may be written again).
  std::unordered_map<uint64_t, pending_create> creates;
  /// Starts beyond the window, in arrival order.
  std::deque<waiting_start> waiting_starts;
  /// Starts written queued, answered with what the next admission round
  /// says of them (admitted, or what they wait for).
  std::vector<queued_answer> queued_answers;
  /// Waits for operations to end, by id; a timed one has a tag (0: none),
  /// named by the timer that answers it early.
  struct waiter {
    caf::typed_response_promise<operation> rp;
    uint64_t tag = 0;
    time_point due;
  };
  std::unordered_multimap<std::string, waiter> waiters;
  bool stopping = false;
  /// Live actors at the last heap trim.
  int64_t live_at_trim = 0;
  /// Steps started, as counted at the last tidy tick.
  uint64_t steps_at_tidy = 0;
  /// A tidy tick is on the clock.
  bool tidy_armed = false;
  /// A recovery freed the operations it loaded: trim once quiet.
  bool trim_wanted = false;
  /// Start-up recovery reads its pages: every other message waits in the
  /// mailbox until the last one is in.
  bool recovering = false;
  /// Operations resumed by the recovery under way.
  size_t recovered_count = 0;
  /// Commands other processes stored for this one (dispatcher_commands.cpp):
  /// a read under way, another wanted, commands being carried out.
  struct {
    bool reading = false;
    bool again = false;
    size_t applying = 0;
    /// A read again soon is on the clock, and how soon (zero: none was).
    bool retry_armed = false;
    duration retry_delay = duration::zero();
    /// Commands this process stored, by seq: what answers their clients
    /// once the store tells what became of them.
    std::unordered_map<int64_t, std::function<void(std::optional<command_outcome>)>> awaiting;
    /// Stores of commands under way, and the outcomes heard meanwhile (the
    /// owner's notice can overtake the answer of the store's insert),
    /// oldest first, at most `early_outcomes_kept`.
    size_t storing = 0;
    std::unordered_map<int64_t, uint8_t> early;
    std::deque<int64_t> early_order;
  } commands;
  /// Node part of generated ids, distinct per process.
  uint32_t node = 0;
  uint32_t counter = 0;
};

using dispatcher_ptr = internal_dispatcher_actor::stateful_pointer<dispatcher_state>;

/// Spawned by `engine::launch`; see dispatcher_state. Its behavior
/// (dispatcher.cpp) lists every message it takes; the handlers live with
/// their concern in the files below.
internal_dispatcher_actor::behavior_type dispatcher(dispatcher_ptr self, runtime_ptr rt);

/// Sends the dispatcher `xs...` after `d` of the engine's clock (virtual in
/// tests and the simulation, like every other timer of the engine).
template <class... Ts>
void send_in(dispatcher_ptr self, duration d, Ts&&... xs) {
  auto& clk = *self->state.rt->clk;
  clk.send_at(clk.now() + d, self, std::forward<Ts>(xs)...);
}

// -- requests of clients (dispatcher_creates.cpp, dispatcher_requests.cpp) -----

caf::result<start_result> on_start(dispatcher_ptr self, start_request& req);
/// A schedule's fire: a start answered to the schedule keeper.
void on_fire(dispatcher_ptr self, start_request& req);
/// An operation actor's create (`tag`) is written, or its idempotency key
/// was taken, or it failed: answers the asker.
void on_created(dispatcher_ptr self, uint64_t tag, create_report& rep);
caf::result<operation> on_get(dispatcher_ptr self, const std::string& id);
caf::result<operation> on_command(dispatcher_ptr self, const std::string& id,
                                  const command_request& cmd);
caf::result<signal_result> on_signal(dispatcher_ptr self, const std::string& id,
                                     signal_request& sig);
/// A wait for `id` to end; with `timeout`, answered as the operation is
/// when it is up (a timer on the engine's clock), so that no wait outlives
/// its asker's patience.
caf::result<operation> on_wait(dispatcher_ptr self, const std::string& id,
                               std::optional<caf::timespan> timeout);
/// A timed wait's time is up: answered with the operation as it is now.
void on_wait_due(dispatcher_ptr self, const std::string& id, uint64_t tag);
/// Hands a watcher's report to its operation, waking it if it sleeps.
void on_report(dispatcher_ptr self, watch_reply& reply);
/// Stops taking work; the operations' actors are told to stop.
void on_shutdown(dispatcher_ptr self);

/// Starts the create of `req`, answered through `answer` once written;
/// returns why it cannot start instead (nothing was written).
caf::error begin_create(dispatcher_ptr self, start_request& req, const create_answer& answer);

/// Starts the waiting starts that the create window has room for (all of
/// them, refused, once the engine stops).
void start_waiting(dispatcher_ptr self);

// -- child operations (dispatcher_children.cpp) --------------------------------

/// The create of slot `slot` of `batch` is answered (an id, or the error);
/// the last one answered sends the batch's answer.
void fill_child(child_batch& batch, size_t slot, std::string id, caf::error err);
/// Starts the children a step asked for, answered in one message.
void on_start_children(dispatcher_ptr self, children_start& req);
/// The children keeper nudges `parent`: it looks at its children again
/// (woken, if it sleeps).
void on_children_nudge(dispatcher_ptr self, const std::string& parent, uint64_t seq);

/// An operation's actor is gone (ended, passivated, taken over): arms the
/// heap tidy, once, on the engine's clock (dispatcher.cpp).
void tidy_later(dispatcher_ptr self);

// -- passivation (dispatcher_parking.cpp) -------------------------------------

/// An operation actor hands `id` off until `due`: only the wake-up time
/// stays. The answer (once this returns) lets the actor quit.
void on_passivated(dispatcher_ptr self, const std::string& id, time_point due);
/// A message for `id` reached its actor after the hand-off: wake it.
void on_late(dispatcher_ptr self, const std::string& id);
/// The sleepers' timer.
void on_wake(dispatcher_ptr self, uint64_t gen);
/// A reader's answer to a wake-up's load.
void on_loaded(dispatcher_ptr self, maybe_op& res);

// -- commands between processes (dispatcher_commands.cpp) ---------------------

/// Reads the commands other processes stored for this one and carries
/// them out (at once, or once the read under way and its commands are
/// done).
void on_commands_poll(dispatcher_ptr self);

/// The writer's lease tick found this process above its share: gives up
/// to `n` sleeping operations to the others (dispatcher_shed.cpp).
void on_shed(dispatcher_ptr self, uint64_t n);

/// Calls `fn` with what became of command `seq`, which this process stored,
/// once the store tells (`on_command_done`), or with none after
/// `engine_config::command_wait`.
void await_command(dispatcher_ptr self, int64_t seq,
                   std::function<void(std::optional<command_outcome>)> fn);
/// A store of a command begins (its outcome may be heard before its seq),
/// and ends (answered, its seq awaited).
void command_store_begins(dispatcher_ptr self);
void command_store_ends(dispatcher_ptr self);
/// The store told what became of command `seq` (of any process).
void on_command_done(dispatcher_ptr self, int64_t seq, uint8_t outcome);
/// The wait for command `seq` is over.
void on_command_due(dispatcher_ptr self, int64_t seq);

/// The processes sharing the store (this one alone, on a store of one).
caf::result<cluster_view> on_cluster(dispatcher_ptr self);

// -- admission (dispatcher_admission.cpp) -------------------------------------

/// An admission round's outcome: the operations it admitted start.
void on_round(dispatcher_ptr self, admission_round& round);

// -- the dispatcher's helpers --------------------------------------------------

/// Gives operation `op` an actor, started per `mode` (dispatcher.cpp).
operation_actor spawn_operation(dispatcher_ptr self, operation op, next_action act, op_start mode);

/// Stops every operation actor but those writing their create: a create
/// is answered by what the writer says of it (dispatcher.cpp).
void stop_actors(dispatcher_ptr self);

/// The lease was found lost: stops every operation actor, answers what
/// waits, and lets the writer rejoin (dispatcher_lease.cpp).
void on_lease_lost(dispatcher_ptr self);

/// Routes a request about operation `id` to the actor that owns it, or
/// runs `absent` when no actor does. While the operation is between two
/// actors the request is held; should it then have vanished (null actor),
/// `absent` runs instead (dispatcher.cpp).
void route(dispatcher_ptr self, const std::string& id,
           std::function<void(const operation_actor&)> forward, std::function<void()> absent);

/// Hands every request held for `id` to `a` (a null `a`: the operation has
/// no actor; each falls back to its `absent`), in arrival order
/// (dispatcher.cpp).
void release(dispatcher_ptr self, const std::string& id, const operation_actor& a);

/// Tells the task broker that this process no longer drives `id`: a task
/// it waits on is dropped (its worker learns to stop at its next beat).
void forget_task(dispatcher_ptr self, const std::string& id);

/// Returns whether the current message comes from the actor that owns
/// `id` now. An actor stopped by a lost lease may still talk while a new
/// one already drives the same operation (dispatcher.cpp).
bool from_owner(dispatcher_ptr self, const std::string& id);

/// Returns whether the lease counted `epoch` (`runtime::leases_lost_handled`
/// when something was asked under it) was lost and its loss handled since:
/// what was asked under it no longer counts here.
bool lost_since(dispatcher_ptr self, uint64_t epoch);

/// Loads a passivated (or unowned) operation and gives it an actor again;
/// requests for it are held meanwhile (dispatcher_parking.cpp).
void wake(dispatcher_ptr self, const std::string& id);

/// Passivates `id` until `due`: only its wake-up time stays in memory
/// (dispatcher_parking.cpp).
void add_sleeper(dispatcher_ptr self, const std::string& id, time_point due);

/// Forgets the wake-up time of `id`, if any (dispatcher_parking.cpp).
void forget_sleeper(dispatcher_ptr self, const std::string& id);

/// Asks the writer for an admission round, when any workflow takes part
/// (dispatcher_admission.cpp).
void request_admission(dispatcher_ptr self);

} // namespace stepwise
