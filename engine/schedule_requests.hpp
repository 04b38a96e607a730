#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "engine/requests.hpp"
#include "engine/schedule.hpp"

/// The requests about schedules, which the schedule keeper (one actor per
/// engine, `engine::schedules()`) answers. The engine handle's schedule
/// functions send the same messages.
namespace stepwise {

/// (schedule_create_atom, schedule, by) -> schedule_result: writes a new
/// schedule (its definition; the state is the engine's). The same
/// definition again answers the stored one, `created` false; another one
/// with the same id is `errc::idempotency_conflict`.
using schedule_create_atom = caf::atom_constant<caf::atom("sw_scnew")>;
/// (schedule_replace_atom, schedule, by) -> schedule: a new definition for the
/// schedule of that id, from its next fire on.
using schedule_replace_atom = caf::atom_constant<caf::atom("sw_scput")>;
/// (schedule_get_atom, id) -> schedule_view.
using schedule_get_atom = caf::atom_constant<caf::atom("sw_scget")>;
/// (schedule_list_atom) -> std::vector<schedule_view>, by id.
using schedule_list_atom = caf::atom_constant<caf::atom("sw_sclist")>;
/// (schedule_delete_atom, id, by) -> schedule_view, as it was.
using schedule_delete_atom = caf::atom_constant<caf::atom("sw_scdel")>;
/// (schedule_pause_atom, id, paused, by) -> schedule_view: pauses, or resumes
/// (the fires missed while paused are not caught up).
using schedule_pause_atom = caf::atom_constant<caf::atom("sw_scpause")>;
/// (schedule_trigger_atom, id, by) -> start_result: one fire now, whatever the
/// overlap policy says.
using schedule_trigger_atom = caf::atom_constant<caf::atom("sw_sctrig")>;

/// A schedule and when it fires next (none: never again, or paused).
struct schedule_view {
  stepwise::schedule schedule;
  std::optional<time_point> next_fire;
};

/// The answer to a create.
struct schedule_result {
  schedule_view view;
  /// False when the same definition was stored before.
  bool created = true;
};

/// `by`, in the requests that change a schedule: who asks (see
/// `event::by`); `schedule_changed` (or the trigger's operation) carries it.
///
/// The schedule keeper as a host talks to it. Errors come as `caf::error`
/// with an `errc` code: `invalid_argument` (naming the field),
/// `unknown_workflow`, `not_found`, `idempotency_conflict`.
using schedules_actor = caf::typed_actor<
  caf::replies_to<schedule_create_atom, schedule, std::string>::with<schedule_result>,
  caf::replies_to<schedule_replace_atom, schedule, std::string>::with<schedule_view>,
  caf::replies_to<schedule_get_atom, std::string>::with<schedule_view>,
  caf::replies_to<schedule_list_atom>::with<std::vector<schedule_view>>,
  caf::replies_to<schedule_delete_atom, std::string, std::string>::with<schedule_view>,
  caf::replies_to<schedule_pause_atom, std::string, bool, std::string>::with<schedule_view>,
  caf::replies_to<schedule_trigger_atom, std::string, std::string>::with<start_result>>;

} // namespace stepwise

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::schedule)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::schedule_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(stepwise::schedule_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<stepwise::schedule_view>)
