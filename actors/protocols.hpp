#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/typed_actor.hpp>

#include "actors/child_messages.hpp"
#include "actors/messages.hpp"
#include "engine/requests.hpp"

/// The protocols between the engine's own actors, as typed interfaces: a
/// message an actor does not take does not compile. The dispatcher's
/// public face, what a host sends it, is `dispatcher_actor`
/// (engine/requests.hpp); the watcher and step actor protocols are in
/// engine/wait.hpp and engine/actor_step.hpp.
///
/// Untyped on purpose, each where it is: the clock's timers
/// (`clock::schedule` delivers any actor's own timer message to it, so the
/// infrastructure's delayed calls, which only the clock reaches, are an
/// untyped actor too), and the dispatcher's recovery behavior, which takes
/// a part of its protocol and leaves the rest in the mailbox.
namespace stepwise {

/// What the commit writer answers a checkpoint's sender with.
using commit_ack_receiver = caf::typed_actor<caf::reacts_to<commit_ack>>;

/// What the commit writer tells the dispatcher: each admission round,
/// operations claimed from a process whose lease ended, and that this
/// process's own lease was lost. A round goes straight to the dispatcher,
/// as a create's acknowledgement goes to its actor and from there to the
/// dispatcher: a round that ran before a create was written is then never
/// taken for one that ran after it.
using writer_events_receiver =
  caf::typed_actor<caf::reacts_to<admission_round>, caf::reacts_to<recover_atom, recovered_ops>,
                   caf::reacts_to<lease_lost_atom>, caf::reacts_to<commands_poll_atom>,
                   caf::reacts_to<command_done_atom, int64_t, uint8_t>,
                   caf::reacts_to<shed_atom, uint64_t>>;

/// The admission keeper (actors/admission_keeper.hpp): its poll timer.
using admission_keeper_actor = caf::typed_actor<caf::reacts_to<admission_poll_atom>>;

/// The event fan-out (actors/event_fanout.hpp): the writer's committed
/// batches in, every subscriber's copy out.
using event_fanout_actor =
  caf::typed_actor<caf::reacts_to<event_batch>, caf::reacts_to<subscribe_atom, event_listener>>;

/// (shutdown_atom): stop taking work. Only the engine handle sends it
/// (`engine::shutdown`), which then stops the engine's other parts too.
using shutdown_atom = caf::atom_constant<caf::atom("sw_stop")>;

/// The dispatcher: the public protocol, and what the engine's own parts
/// send it.
using internal_dispatcher_actor = dispatcher_actor::extend<
  // A watcher's report (engine/wait.hpp): watchers are given the
  // dispatcher as their `reply_to`.
  caf::reacts_to<watch_done_atom, watch_reply>,
  // Stop taking work; answered once the operations' actors were told.
  caf::reacts_to<shutdown_atom>,
  // An operation actor's create is written, or its key was taken, or it
  // failed.
  caf::reacts_to<created_atom, uint64_t, create_report>,
  // From the writer (see writer_events_receiver).
  caf::reacts_to<admission_round>, caf::reacts_to<recover_atom, recovered_ops>,
  caf::reacts_to<lease_lost_atom>, caf::reacts_to<commands_poll_atom>,
  caf::reacts_to<shed_atom, uint64_t>,
  // What became of a command this process stored (the store's notice), or
  // the time to answer without knowing.
  caf::reacts_to<command_done_atom, int64_t, uint8_t>, caf::reacts_to<command_due_atom, int64_t>,
  // The recovery pager: the next page of start-up recovery.
  caf::reacts_to<page_atom, recovered_ops>,
  // From an operation actor: its operation ended (and the last snapshot).
  caf::reacts_to<finished_atom, std::string, op_snapshot>,
  // Passivation: an operation actor hands its operation off; a message
  // that reached it after the hand-off wakes the operation.
  caf::reacts_to<passivated_atom, std::string, time_point>, caf::reacts_to<wake_atom, std::string>,
  // Its timers: the sleepers' wake-up, housekeeping, a timed wait's end.
  caf::reacts_to<wake_atom, uint64_t>, caf::reacts_to<tidy_atom>,
  caf::reacts_to<wait_due_atom, std::string, uint64_t>,
  // A reader's answer to a wake-up's load.
  caf::reacts_to<maybe_op>,
  // The schedule keeper: a fire to start.
  caf::reacts_to<fire_atom, start_request>,
  // Child operations: a step's children to start (dispatcher_children.cpp);
  // the children keeper's nudge of a parent.
  caf::reacts_to<start_children_atom, children_start>,
  caf::reacts_to<children_nudge_atom, std::string, uint64_t>>;

/// The children keeper (actors/children_keeper.hpp).
using children_keeper_actor = caf::typed_actor<
  // From an operation actor: its children wait opens, arms, closes.
  caf::reacts_to<children_watch_atom, std::string, children_watch>,
  caf::reacts_to<children_arm_atom, std::string, uint64_t, uint64_t, bool>,
  caf::reacts_to<children_unwatch_atom, std::string>,
  // A reader's list of a canceled parent's children.
  caf::reacts_to<children_read>,
  // From the dispatcher: an operation ended; the parents of operations a
  // recovery found.
  caf::reacts_to<finished_atom, op_snapshot>,
  caf::reacts_to<recover_atom, std::vector<std::string>>,
  // From the notice pump: a child ended in another process.
  caf::reacts_to<child_ended_atom, std::string, uint8_t, std::string>>;

/// The recovery pager (actors/recovery_pager.hpp): where the next page
/// begins (from the dispatcher, or its own timer after a failed read).
using recovery_pager_actor = caf::typed_actor<caf::reacts_to<recover_atom, active_position>>;

/// The schedule keeper: the public protocol (engine/schedule_requests.hpp),
/// and what the engine's own parts send it.
using schedule_keeper_actor = schedules_actor::extend<
  // Its writes are durable (or not).
  caf::reacts_to<commit_ack>,
  // The dispatcher: a fire's operation; an operation of a fire ended.
  caf::reacts_to<fire_answer>, caf::reacts_to<op_ended_atom, std::string, std::string>,
  // Readers: an operation's state; every schedule.
  caf::reacts_to<maybe_op>, caf::reacts_to<loaded_schedules>,
  // Its timer; on a shared store, its look at what other processes wrote.
  caf::reacts_to<schedule_wake_atom, uint64_t>, caf::reacts_to<schedule_refresh_atom>,
  caf::reacts_to<schedules_changed_atom>>;

/// An operation actor (and the stand-in of an unregistered version).
using operation_actor = caf::typed_actor<
  // Client requests, through the dispatcher.
  caf::replies_to<get_atom>::with<operation>,
  caf::replies_to<command_atom, command_request>::with<operation>,
  caf::replies_to<signal_atom, signal_request>::with<signal_result>,
  // The same, stored by another process (`command_store`): the checkpoint
  // that carries it out deletes the stored command (its seq).
  caf::replies_to<command_atom, command_request, int64_t>::with<operation>,
  caf::replies_to<signal_atom, signal_request, int64_t>::with<signal_result>,
  // Its checkpoint is written.
  caf::reacts_to<commit_ack>,
  // An attempt's result; a wait's task described; a watcher's report.
  caf::reacts_to<step_done>, caf::reacts_to<watch_ready>,
  caf::reacts_to<watch_done_atom, watch_reply>,
  // Its timers: a due wait or retry, a step's timeout, the lease wait, the
  // deadline, a watched wait's linger.
  caf::reacts_to<timer_atom, uint64_t>, caf::reacts_to<step_timeout_atom, uint64_t>,
  caf::reacts_to<lease_wait_atom, uint64_t>, caf::reacts_to<deadline_atom>,
  caf::reacts_to<linger_atom, uint64_t, time_point>,
  // From the dispatcher: admitted (as of a revision). To itself: passivate.
  caf::reacts_to<admitted_atom, int64_t>, caf::reacts_to<passivate_atom, uint64_t>,
  // To itself, after refusing a request for an ended operation.
  caf::reacts_to<settle_atom>,
  // Child operations (operation_children.cpp): a step's children started;
  // a reader's list of them; look at them again.
  caf::reacts_to<children_started>, caf::reacts_to<children_read>,
  caf::reacts_to<children_nudge_atom, uint64_t>>;

/// Where an attempt's result goes: its operation actor (from a worker, an
/// asynchronous step's completion, or a step actor's reply).
using attempt_result_receiver = caf::typed_actor<caf::reacts_to<step_done>>;

/// A store reader (detached: store calls block).
using reader_actor = caf::typed_actor<
  // An operation as callers are shown it, or not_found.
  caf::replies_to<get_atom, std::string>::with<operation>,
  // An operation as stored, by id or by idempotency key.
  caf::replies_to<load_atom, std::string>::with<maybe_op>,
  caf::replies_to<load_key_atom, std::string>::with<maybe_op>,
  caf::replies_to<list_atom, list_filter>::with<operation_page>,
  // A page of start-up recovery.
  caf::replies_to<recover_atom, active_position, uint64_t>::with<recovered_ops>,
  caf::replies_to<events_atom, int64_t, uint64_t>::with<std::vector<event>>,
  // Every schedule.
  caf::replies_to<load_schedules_atom>::with<loaded_schedules>,
  caf::replies_to<load_schedule_atom, std::string>::with<loaded_schedules>,
  // Every child of an operation, answered as a message to the asker.
  caf::reacts_to<children_atom, std::string, uint64_t, children_read_receiver>,
  // Retention: one batch.
  caf::replies_to<purge_atom, purge_request>::with<purge_result>,
  // Commands between processes; the processes sharing the store.
  caf::replies_to<put_command_atom, stored_command>::with<int64_t>,
  caf::replies_to<take_commands_atom, std::string, uint64_t>::with<stored_commands>,
  caf::replies_to<drop_command_atom, int64_t, uint8_t>::with<bool>,
  caf::replies_to<release_ops_atom, std::vector<std::string>>::with<std::vector<std::string>>,
  caf::replies_to<cluster_atom>::with<cluster_view>>;

/// The retention keeper: its timer (answers of readers come to the
/// requests' continuations).
using retention_keeper_actor = caf::typed_actor<caf::reacts_to<retention_tick_atom, uint64_t>>;

} // namespace stepwise
