#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/event.hpp"
#include "engine/operation.hpp"
#include "engine/progress.hpp"
#include "engine/workflow.hpp"

/// Pieces shared by the transition files (progress.cpp, compensation.cpp);
/// not part of the engine's interface.
namespace stepwise::progress::detail {

/// `op.error` while a canceled saga compensates: the operation ends
/// `canceled` rather than `failed` once its compensations are done.
inline constexpr std::string_view canceled_marker = "canceled";

/// Appends an event of `type` about `op` (and step `rec`, if given).
void emit(std::vector<event>& out, const operation& op, event_type type, time_point now,
          const step_record* rec = nullptr, std::string error = {});

/// Ends the operation in `st` with its terminal event.
next_action finish(operation& op, op_state st, std::string error, time_point now,
                   std::vector<event>& out);

/// A step that cannot go on: a best-effort step is recorded incomplete and
/// the operation continues; another fails the operation.
next_action give_up(operation& op, const workflow& wf, size_t idx, std::string error,
                    time_point now, std::vector<event>& out);

/// Schedules another attempt of step `idx` after `delay` if its policy
/// allows one, else gives up.
next_action try_again(operation& op, const workflow& wf, size_t idx, duration delay,
                      std::string reason, time_point now, std::vector<event>& out);

/// The attempt of wait step `idx` just started (`step_started` written):
/// ends at once with a signal stored before, or waits (waits.cpp).
next_action begin_wait(operation& op, const workflow& wf, size_t idx, time_point now,
                       std::vector<event>& out);

/// The wait of step `idx` lasted past its timeout (waits.cpp).
next_action wait_timed_out(operation& op, const workflow& wf, size_t idx, time_point now,
                           double unit_random, std::vector<event>& out);

/// Gives step record `rec` a fresh retry budget: it runs again as if it
/// had not run, attempts and elapsed time counting anew.
void fresh_budget(step_record& rec);

/// Goes on after a retry: at once, or, for an operation that waits for
/// admission, back in line (its key or slot may be another's since it
/// ended; the store queues it again with this write).
next_action go_on(operation& op, const workflow& wf, time_point now, std::vector<event>& out);

/// Readies an ended (failed, canceled) operation for a new run: the steps
/// whose compensation ran go back to pending, the step where it stopped
/// gets a fresh budget, the error is cleared.
void reopen(operation& op);

/// Returns the delay before attempt `attempt + 1` per the step's policy.
duration policy_delay(const step_def& def, int32_t attempt, double rnd);

/// The operation cannot go on: ends it in `final_state`, or first runs the
/// compensations of its succeeded steps when it has any.
next_action unwind(operation& op, const workflow& wf, op_state final_state, std::string error,
                   time_point now, std::vector<event>& out);

/// Starts the next compensation, or ends the operation when none is left.
next_action next_compensation(operation& op, const workflow& wf, time_point now,
                              std::vector<event>& out);

/// Returns how to continue a compensating operation after a restart.
next_action recover_compensation(operation& op, const workflow& wf, time_point now,
                                 std::vector<event>& out);

} // namespace stepwise::progress::detail
