// Who did what (`event::by`): every event that a request caused carries
// the `by` of that request, and a `by` names only events of what its
// request was about. The clients give each request a `by` of its own
// (`note_request`), so that a `by` carried to the wrong operation, or
// lost on its way (a stored command, a pause taken when the attempt
// ends), shows here.
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

namespace {

/// Event types that only a request makes: each must name it.
bool needs_by(event_type t) {
  switch (t) {
    case event_type::operation_created:
    case event_type::signal_received:
    case event_type::operation_retried:
    case event_type::operation_resumed:
    case event_type::schedule_changed:
      return true;
    default:
      return false;
  }
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

void sim_store::check_by(const checkpoint& cp) {
  const operation* op = cp.op.get();
  bool create = cp.what == checkpoint::kind::create && op != nullptr;
  for (auto& e : cp.events) {
    auto what = [&] {
      return std::string{to_string(e.type)} + " of "
             + (op         ? "operation " + op->id
                : cp.sched ? "schedule " + cp.sched->id
                           : "?");
    };
    log_.check_lazy(!needs_by(e.type) || !e.by.empty(), [&] { return what() + " names nobody"; });
    if (e.by.empty())
      continue;
    bool fits = false;
    if (starts_with(e.by, "parent:")) {
      // A child's start, or its cancel by its parent.
      fits = op != nullptr && op->parent_id == e.by.substr(7);
    } else if (starts_with(e.by, "schedule:")) {
      fits = create && op->schedule_id == e.by.substr(9);
    } else if (auto r = requests_.find(e.by); r != requests_.end()) {
      auto& about = r->second;
      if (about.empty())
        fits = true;
      else if (about == "start")
        fits = create;
      else if (starts_with(about, "op "))
        fits = op != nullptr && op->id == about.substr(3);
      else if (starts_with(about, "schedule ")) {
        auto id = about.substr(9);
        // A change of the schedule, or the operation its trigger started.
        fits = (cp.sched && cp.sched->id == id && e.type == event_type::schedule_changed)
               || (create && op->schedule_id == id);
      }
    }
    log_.check_lazy(fits, [&] { return what() + " names '" + e.by + "', who did not ask for it"; });
  }
}

} // namespace stepwise::sim
