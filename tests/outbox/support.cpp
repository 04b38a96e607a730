#include "tests/outbox/support.hpp"

#include <map>
#include <set>

#include "engine/step_context.hpp"
#include "engine/workflow.hpp"
#include "outbox/message.hpp"

namespace stepwise::test {

registry outbox_workflows() {
  registry reg;
  auto step = [](const std::string& name) {
    return make_step(name, [](step_context&) { return done(); });
  };
  static_cast<void>(
    reg.add(workflow("three", 1).step(1, step("a")).step(2, step("b")).step(3, step("c"))));
  static_cast<void>(reg.add(workflow("task", 1).step(
    1, make_step("monitor", [](step_context& ctx) {
      auto id = ctx.input().at("request_id").as_string();
      ctx.emit(
        event_type::infrastructure_task_completed,
        {{"infrastructure_id", "i-" + std::string(id)},
         {"request_id", id},
         {"status", "FAILED"},
         {"failure_details", {{"failureCode", "INSUFFICIENT_CAPACITY"}, {"description", "full"}}},
         {"outputs", boost::json::object{}}});
      return done();
    }))));
  return reg;
}

outbox::sink_timing fast_timing() {
  outbox::sink_timing t;
  t.lease_ttl = std::chrono::seconds(1);
  t.poll = std::chrono::milliseconds(50);
  t.cursor_interval = std::chrono::milliseconds(20);
  t.backoff_initial = std::chrono::milliseconds(5);
  t.backoff_max = std::chrono::milliseconds(100);
  return t;
}

std::vector<received> from_webhook(const std::vector<boost::json::object>& events) {
  std::vector<received> out;
  for (auto& e : events) {
    std::string op(e.at("operation_id").as_string());
    auto type = e.at("type").as_string();
    if (type == "infrastructure_task_completed")
      out.push_back({std::string(e.at("request_id").as_string()), op});
    else
      out.push_back({std::to_string(e.at("seq").as_int64()), op});
  }
  return out;
}

std::vector<received> from_kafka(const std::vector<kafka_record>& records) {
  std::vector<received> out;
  for (auto& r : records)
    out.push_back({r.message_id, r.key});
  return out;
}

namespace {

/// Each operation's events by the last arrival of each, in log order.
void check_last_arrivals(const std::map<std::string, const event*>& by_id,
                         const std::vector<received>& got, std::vector<std::string>& problems) {
  std::set<std::string> seen;
  std::map<std::string, int64_t> next_last; // per operation, seen from the end
  for (auto r = got.rbegin(); r != got.rend(); ++r) {
    auto i = by_id.find(r->message_id);
    if (i == by_id.end() || !seen.insert(r->message_id).second)
      continue;
    auto seq = i->second->seq;
    auto [at, fresh] = next_last.emplace(r->operation_id, seq);
    if (!fresh && seq > at->second)
      problems.push_back("operation " + r->operation_id + ": seq " + std::to_string(seq)
                         + " last arrived after seq " + std::to_string(at->second));
    at->second = seq;
  }
}

} // namespace

delivery_check check_delivery(const std::vector<event>& committed, const std::vector<received>& got,
                              arrival_order order) {
  delivery_check out;
  std::map<std::string, const event*> by_id;
  for (auto& e : committed)
    by_id[outbox::message_id(e)] = &e;
  std::set<std::string> seen;
  std::map<std::string, int64_t> last_first; // per operation
  for (auto& r : got) {
    auto i = by_id.find(r.message_id);
    if (i == by_id.end()) {
      out.problems.push_back("unexpected message " + r.message_id);
      continue;
    }
    if (i->second->operation_id != r.operation_id)
      out.problems.push_back("message " + r.message_id + " has the wrong key");
    if (!seen.insert(r.message_id).second) {
      ++out.duplicates;
      continue;
    }
    auto& last = last_first[r.operation_id];
    if (order == arrival_order::first && i->second->seq < last)
      out.problems.push_back("operation " + r.operation_id + ": seq "
                             + std::to_string(i->second->seq) + " first arrived after seq "
                             + std::to_string(last));
    last = i->second->seq;
  }
  if (order == arrival_order::last)
    check_last_arrivals(by_id, got, out.problems);
  out.distinct = seen.size();
  for (auto& [id, e] : by_id)
    if (!seen.count(id))
      out.problems.push_back("message " + id + " (seq " + std::to_string(e->seq)
                             + ") never arrived");
  return out;
}

std::vector<std::string> check_restarts(const std::vector<event>& committed,
                                        const std::vector<received>& stream,
                                        const std::vector<int64_t>& cursors) {
  std::map<std::string, int64_t> seq_of;
  for (auto& e : committed)
    seq_of[outbox::message_id(e)] = e.seq;
  std::vector<int64_t> seqs;
  for (auto& r : stream)
    if (auto i = seq_of.find(r.message_id); i != seq_of.end())
      seqs.push_back(i->second);
  std::set<int64_t> in_stream(seqs.begin(), seqs.end());
  // Where a process that took over after a kill begins this stream.
  std::set<int64_t> restart_points;
  for (auto c : cursors)
    if (auto i = in_stream.upper_bound(c); i != in_stream.end())
      restart_points.insert(*i);
  std::vector<std::string> out;
  for (size_t i = 1; i < seqs.size(); ++i)
    if (seqs[i] <= seqs[i - 1] && !restart_points.count(seqs[i]))
      out.push_back("seq " + std::to_string(seqs[i]) + " came again after seq "
                    + std::to_string(seqs[i - 1]) + ", not where a stored cursor left off");
  return out;
}

} // namespace stepwise::test
