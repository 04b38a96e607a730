// The command_store side of the simulation's store (on seeds that keep
// leases): commands other processes stored, kept across restarts as a
// table is, and the invariant that each is carried out at most once: the
// checkpoint that consumes one finds it stored, and (a signal with an id)
// records it.
#include <algorithm>

#include "engine/commands.hpp"
#include "tests/simulation/sim_store.hpp"

namespace stepwise::sim {

namespace {

std::string command_text(const stored_command& c) {
  return "command " + std::to_string(c.seq) + " ("
         + (c.is_signal ? "signal " + c.signal_name + " '" + c.signal_id + "'"
                        : std::string{to_string(c.cmd)})
         + ") for " + c.operation_id;
}

} // namespace

caf::expected<int64_t> sim_store::put(const stored_command& cmd) {
  if (auto err = read_fault("store a command"))
    return err;
  if (!cmd.signal_id.empty())
    for (auto& kv : commands_)
      if (kv.second.operation_id == cmd.operation_id && kv.second.signal_id == cmd.signal_id)
        return int64_t{0};
  auto c = cmd;
  c.seq = ++command_seq_;
  log_.note("store: " + command_text(c) + " stored");
  auto seq = c.seq;
  auto owner = owner_of_.find(c.operation_id);
  notify(commands_channel, owner == owner_of_.end() ? std::string{} : owner->second);
  commands_.emplace(seq, std::move(c));
  return seq;
}

caf::expected<std::vector<stored_command>> sim_store::for_owner(const std::string& owner,
                                                                size_t limit) {
  if (auto err = read_fault("read commands"))
    return err;
  std::vector<stored_command> out;
  for (auto& [seq, c] : commands_) {
    if (out.size() >= limit)
      break;
    auto op = peek(c.operation_id);
    if (!op)
      continue; // removed with its operation (as a join finds none)
    auto i = owner_of_.find(c.operation_id);
    bool mine = i != owner_of_.end() && i->second == owner;
    if (mine || is_terminal(op->state))
      out.push_back(c);
  }
  return out;
}

caf::error sim_store::drop(int64_t seq, command_outcome why) {
  if (auto err = read_fault("drop a command"))
    return err;
  if (auto i = commands_.find(seq); i != commands_.end()) {
    auto& c = i->second;
    log_.note("store: " + command_text(c) + " dropped (" + std::string{to_string(why)} + ")");
    // An ended operation refuses a signal: a retry may revive it later.
    if (auto op = peek(c.operation_id); c.is_signal && op && is_terminal(op->state))
      refused_while_ended_.insert({c.operation_id, c.signal_id});
    commands_.erase(i);
    notify(applied_channel, std::string{to_string(why)} + " " + std::to_string(seq));
  }
  return caf::none;
}

bool sim_store::stores_signal(const std::string& id, const std::string& signal_id) const {
  return std::any_of(commands_.begin(), commands_.end(), [&](const auto& kv) {
    return kv.second.is_signal && kv.second.operation_id == id && kv.second.signal_id == signal_id;
  });
}

bool sim_store::refused_while_ended(const std::string& id, const std::string& signal_id) const {
  return refused_while_ended_.count({id, signal_id}) > 0;
}

void sim_store::consume(const checkpoint& cp) {
  auto i = commands_.find(cp.consumed_command);
  log_.check(i != commands_.end(), "a checkpoint of " + cp.op->id + " consumed command "
                                     + std::to_string(cp.consumed_command)
                                     + ", which is not stored (carried out twice?)");
  if (i == commands_.end())
    return;
  auto& c = i->second;
  log_.check(c.operation_id == cp.op->id,
             "a checkpoint of " + cp.op->id + " consumed " + command_text(c));
  if (c.is_signal && !c.signal_id.empty())
    log_.check(std::any_of(cp.op->signals.begin(), cp.op->signals.end(),
                           [&](const signal_record& s) { return s.id == c.signal_id; }),
               "the checkpoint that consumed " + command_text(c) + " does not record the signal");
  log_.note("store: " + command_text(c) + " carried out");
  ++commands_carried_;
  notify(applied_channel, "applied " + std::to_string(c.seq));
  commands_.erase(i);
}

} // namespace stepwise::sim
