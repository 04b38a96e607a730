// The checks of a command's request against an operation: the fields it
// carries (a retry's `from_step` and input patch, a skip's step and
// reason), and whether the operation's state allows what they ask.
#include "engine/commands.hpp"

#include "engine/errc.hpp"
#include "engine/progress.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

std::string steps_listed(const operation& op) {
  std::string out;
  for (auto& s : op.steps)
    out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

caf::error unknown_step(const operation& op, const char* field, const std::string& name) {
  return make_error(errc::invalid_argument, std::string{field} + ": workflow '" + op.workflow
                                              + "' version " + std::to_string(op.workflow_version)
                                              + " has no step '" + name
                                              + "' (its steps: " + steps_listed(op) + ")");
}

caf::error state_refusal(const operation& op, std::string why) {
  return make_error(errc::invalid_state, "operation '" + op.id + "' is "
                                           + std::string{to_string(op.state)} + ": " + why);
}

} // namespace

command_request command_request::retry(retry_options opts) {
  command_request r{command::retry};
  r.input_patch = std::move(opts.input_patch);
  r.from_step = std::move(opts.from_step);
  return r;
}

size_t step_index(const operation& op, const std::string& name) {
  size_t i = 0;
  while (i < op.steps.size() && op.steps[i].name != name)
    ++i;
  return i;
}

caf::error check_fields(const operation& op, const command_request& req) {
  if (req.kind == command::retry) {
    if (!req.from_step.empty() && step_index(op, req.from_step) == op.steps.size())
      return unknown_step(op, "from_step", req.from_step);
    if (req.input_patch && holds_sealed(*req.input_patch))
      return make_error(errc::invalid_argument,
                        "input: objects with a \"$sealed\" member are the engine's sealed "
                        "secrets and cannot be given");
  }
  if (req.kind == command::skip) {
    if (req.step.empty())
      return make_error(errc::invalid_argument, "step: required (the step to skip)");
    if (step_index(op, req.step) == op.steps.size())
      return unknown_step(op, "step", req.step);
    if (req.reason.empty())
      return make_error(errc::invalid_argument, "reason: required (why the step is skipped)");
    if (req.reason.size() > max_skip_reason)
      return make_error(errc::invalid_argument,
                        "reason: at most " + std::to_string(max_skip_reason) + " bytes");
  }
  return caf::error{};
}

bool allows(const operation& op, const command_request& req, time_point now) {
  bool by_state = allows(op, req.kind, now);
  switch (req.kind) {
    case command::retry: {
      if (req.from_step.empty())
        return by_state;
      auto idx = step_index(op, req.from_step);
      // A succeeded operation runs steps again only when one is named.
      bool state_ok =
        by_state || (op.state == op_state::succeeded && !(op.deadline && now >= *op.deadline));
      // Steps before it are not run again: none of them may be unfinished.
      return state_ok && idx <= progress::restart_point(op);
    }
    case command::skip: {
      if (!by_state)
        return false;
      auto idx = step_index(op, req.step);
      if (idx >= op.steps.size())
        return false;
      auto st = op.steps[idx].state;
      if (op.state == op_state::failed)
        return st == step_state::failed;
      if (op.state == op_state::paused)
        return idx == op.cursor();
      return idx == op.cursor() && st == step_state::waiting;
    }
    default:
      return by_state;
  }
}

caf::error refusal(const operation& op, const command_request& req, time_point now) {
  switch (req.kind) {
    case command::retry: {
      if (req.from_step.empty())
        break;
      bool succeeded_ok = op.state == op_state::succeeded && !(op.deadline && now >= *op.deadline);
      if (!allows(op, req.kind, now) && !succeeded_ok)
        break;
      auto stop = progress::restart_point(op);
      if (stop >= op.steps.size())
        break; // nothing has to run first: not refused for the step
      return state_refusal(op, "from_step '" + req.from_step + "' comes after step '"
                                 + op.steps[stop].name
                                 + "', which has to run first; retry from that step or "
                                   "an earlier one");
    }
    case command::skip: {
      if (!allows(op, req.kind, now))
        break;
      auto idx = step_index(op, req.step);
      auto& rec = op.steps[idx];
      return state_refusal(op, "step '" + req.step + "' is " + std::string{to_string(rec.state)}
                                 + ": only the failed, paused or waiting step it stopped at "
                                   "can be skipped");
    }
    default:
      break;
  }
  return refusal(op, req.kind, now);
}

} // namespace stepwise
