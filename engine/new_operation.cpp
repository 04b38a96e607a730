#include "engine/new_operation.hpp"

#include <cstdio>

#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

uint64_t fnv1a(const std::string& s, uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace

std::string new_operation_id(time_point now, uint32_t node, uint32_t counter) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "op-%013llx%04x%06x",
                static_cast<unsigned long long>(to_micros(now)), node & 0xffffu,
                counter & 0xffffffu);
  return buf;
}

std::string request_hash(const start_request& req, int32_t version) {
  std::string canon = req.workflow;
  canon += '\n';
  canon += std::to_string(version);
  canon += '\n';
  canon += boost::json::serialize(req.input);
  canon += '\n';
  if (req.deadline)
    canon += std::to_string(to_micros(*req.deadline));
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fnv1a(canon)));
  return buf;
}

operation new_operation(const start_request& req, const workflow& wf, std::string id,
                        time_point now) {
  operation op;
  op.id = std::move(id);
  op.workflow = wf.name();
  op.workflow_version = wf.version();
  op.state = op_state::pending;
  op.input = std::make_shared<const boost::json::object>(req.input);
  op.steps.reserve(wf.steps().size());
  for (auto& s : wf.steps()) {
    step_record r;
    r.name = s.name;
    r.weight = s.weight;
    op.steps.emplace_back(std::move(r));
  }
  op.created_at = now;
  op.updated_at = now;
  op.deadline = req.deadline;
  op.idempotency_key = req.idempotency_key;
  op.request_hash = request_hash(req, wf.version());
  op.revision = 1;
  op.parent_id = req.parent_id;
  op.schedule_id = req.schedule_id;
  // The request's own labels win over those the workflow takes from the
  // input; a child and a scheduled operation are found by what started it.
  op.labels = wf.labels_of(req.input);
  for (auto& [k, v] : req.labels)
    op.labels[k] = v;
  if (!req.parent_id.empty())
    op.labels["parent"] = req.parent_id;
  if (!req.schedule_id.empty())
    op.labels["schedule"] = req.schedule_id;
  return op;
}

void note_fire(const operation& op, const start_request& req, time_point now,
               std::vector<event>& out) {
  if (req.schedule_id.empty())
    return;
  event e;
  e.time = now;
  e.operation_id = op.id;
  e.type = event_type::schedule_fired;
  e.extra = {{"schedule", req.schedule_id},
             {"fire_time", format_time(req.fire_time.value_or(now))}};
  out.push_back(std::move(e));
}

caf::error seal_input(operation& op, const workflow& wf, const key_ring* keys) {
  if (wf.secrets().empty() || !op.input)
    return caf::error{};
  auto input = *op.input;
  if (auto err = seal_paths(input, wf.secrets(), keys, op.id))
    return err;
  op.input = std::make_shared<const boost::json::object>(std::move(input));
  return caf::error{};
}

} // namespace stepwise
