#include "tests/simulation/describe.hpp"

#include "actors/child_messages.hpp"
#include "actors/messages.hpp"
#include "engine/requests.hpp"

namespace stepwise::sim {

namespace {

std::string op_text(const operation& op) {
  return op.id + " " + std::string{to_string(op.state)} + " rev " + std::to_string(op.revision);
}

} // namespace

std::string describe(const caf::type_erased_tuple& msg) {
  if (msg.size() == 0)
    return "()";
  if (msg.match_element<commit_ack>(0)) {
    auto& x = msg.get_as<commit_ack>(0);
    return "commit_ack tag " + std::to_string(x.tag) + " status "
           + std::to_string(static_cast<int>(x.status));
  }
  if (msg.match_element<step_done>(0)) {
    auto& x = msg.get_as<step_done>(0);
    return "step_done gen " + std::to_string(x.generation) + " attempt "
           + std::to_string(x.attempt);
  }
  if (msg.match_element<event_batch>(0)) {
    auto& x = msg.get_as<event_batch>(0);
    std::string out = "event_batch";
    for (auto& e : x.events)
      out += " " + std::to_string(e.seq) + ":" + std::string{to_string(e.type)};
    return out;
  }
  if (msg.match_element<maybe_op>(0)) {
    auto& x = msg.get_as<maybe_op>(0);
    return "maybe_op " + x.id + (x.value ? " " + op_text(*x.value) : " none");
  }
  if (msg.match_element<operation>(0))
    return "operation " + op_text(msg.get_as<operation>(0));
  if (msg.match_element<start_result>(0))
    return "start_result " + op_text(msg.get_as<start_result>(0).op);
  if (msg.match_element<signal_result>(0))
    return "signal_result " + op_text(msg.get_as<signal_result>(0).op);
  if (msg.match_element<recovered_ops>(0))
    return "recovered_ops " + std::to_string(msg.get_as<recovered_ops>(0).ops.size());
  if (msg.match_element<admission_round>(0)) {
    auto& r = msg.get_as<admission_round>(0);
    std::string out = "admission_round startable";
    for (auto& id : r.startable)
      out += " " + id;
    out += " updates";
    for (auto& u : r.updates)
      out += " " + u.id + ":" + u.blocked_by;
    return out;
  }
  if (msg.match_elements<created_atom, uint64_t, create_report>()) {
    auto& r = msg.get_as<create_report>(2);
    return "created tag " + std::to_string(msg.get_as<uint64_t>(1)) + " outcome "
           + std::to_string(static_cast<int>(r.what)) + (r.op ? " " + op_text(*r.op) : "");
  }
  // CAF would print their times as numbers, and overflows on time_point::max.
  if (msg.match_elements<passivated_atom, std::string, time_point>())
    return "passivated " + msg.get_as<std::string>(1);
  if (msg.match_elements<linger_atom, uint64_t, time_point>())
    return "linger gen " + std::to_string(msg.get_as<uint64_t>(1));
  if (msg.match_element<bridge_job>(0))
    return "client request";
  if (msg.match_element<watch_ready>(0))
    return "watch_ready";
  if (msg.match_element<children_started>(0))
    return "children_started " + std::to_string(msg.get_as<children_started>(0).children.size());
  if (msg.match_element<children_read>(0)) {
    auto& x = msg.get_as<children_read>(0);
    return "children_read of " + x.parent_id + " seq " + std::to_string(x.seq) + ": "
           + std::to_string(x.children.size()) + (x.err ? " (failed)" : "");
  }
  if (msg.match_elements<start_children_atom, children_start>())
    return "start_children of " + msg.get_as<children_start>(1).parent_id + ": "
           + std::to_string(msg.get_as<children_start>(1).starts.size());
  if (msg.match_elements<children_watch_atom, std::string, children_watch>())
    return "children_watch of " + msg.get_as<std::string>(1) + " seq "
           + std::to_string(msg.get_as<children_watch>(2).seq);
  if (msg.match_elements<children_atom, std::string, uint64_t, children_read_receiver>())
    return "list children of " + msg.get_as<std::string>(1);
  return msg.stringify();
}

} // namespace stepwise::sim
