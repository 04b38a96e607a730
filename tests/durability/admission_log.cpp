#include "tests/durability/admission_log.hpp"

#include <algorithm>
#include <limits>

#include "tests/durability/child_process.hpp"

namespace stepwise::test {

namespace {

/// Spans of each key, in the order they started.
std::map<std::string, std::vector<const op_span*>> by_key(
  const std::map<std::string, op_span>& spans) {
  std::map<std::string, std::vector<const op_span*>> out;
  for (auto& [id, s] : spans)
    if (!s.key.empty())
      out[s.key].push_back(&s);
  for (auto& [key, list] : out)
    std::sort(list.begin(), list.end(),
              [](auto* a, auto* b) { return a->start_seq < b->start_seq; });
  return out;
}

/// The most intervals [from, to) open at once.
size_t most_open(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::vector<std::pair<int64_t, int>> edges;
  for (auto& [from, to] : intervals) {
    edges.emplace_back(from, 1);
    edges.emplace_back(to, -1);
  }
  // At one instant an end comes before a start: the slot was free.
  std::sort(edges.begin(), edges.end());
  int64_t open = 0;
  int64_t most = 0;
  for (auto& e : edges)
    most = std::max(most, open += e.second);
  return static_cast<size_t>(most);
}

/// An operation that never ended is open to the end.
int64_t open_end(int64_t end) {
  return end == 0 ? std::numeric_limits<int64_t>::max() : end;
}

} // namespace

int64_t micros(time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

std::map<std::string, op_span> spans_of(const std::vector<operation>& ops,
                                        const std::vector<event>& events,
                                        const std::vector<effect_line>& effects) {
  std::map<std::string, op_span> out;
  for (auto& op : ops) {
    auto& s = out[op.id];
    s.id = op.id;
    s.workflow = op.workflow;
    s.key = op.key;
    s.created_us = micros(op.created_at);
  }
  for (auto& e : events) {
    auto i = out.find(e.operation_id);
    if (i == out.end())
      continue;
    auto& s = i->second;
    if (e.type == event_type::operation_created)
      s.created_seq = e.seq;
    if (e.type == event_type::step_started && s.start_seq == 0)
      s.start_seq = e.seq;
    if (is_terminal(e.type)) {
      s.end_seq = e.seq;
      s.end_us = micros(e.time);
    }
  }
  for (auto& e : effects) {
    auto i = out.find(e.op);
    if (i == out.end())
      continue;
    auto& s = i->second;
    if (s.first_effect_us == 0 || e.t_us < s.first_effect_us)
      s.first_effect_us = e.t_us;
    s.last_effect_us = std::max(s.last_effect_us, e.t_us);
    if (std::find(s.pids.begin(), s.pids.end(), e.pid) == s.pids.end())
      s.pids.push_back(e.pid);
  }
  return out;
}

std::vector<std::string> key_overlaps(const std::map<std::string, op_span>& spans) {
  std::vector<std::string> out;
  for (auto& [key, list] : by_key(spans)) {
    for (size_t i = 0; i < list.size(); ++i) {
      for (size_t j = i + 1; j < list.size(); ++j) {
        auto& a = *list[i];
        auto& b = *list[j]; // started after a
        if (b.start_seq < a.end_seq)
          out.push_back("key " + key + ": " + b.id + " started (seq " + std::to_string(b.start_seq)
                        + ") before " + a.id + " ended (seq " + std::to_string(a.end_seq) + ")");
        if (b.first_effect_us != 0 && b.first_effect_us < a.end_us)
          out.push_back("key " + key + ": " + b.id + " ran a step "
                        + std::to_string(a.end_us - b.first_effect_us) + " µs before " + a.id
                        + " ended");
      }
    }
  }
  return out;
}

std::vector<std::string> order_breaks(const std::map<std::string, op_span>& spans) {
  std::vector<std::string> out;
  for (auto& [key, started] : by_key(spans)) {
    for (size_t i = 0; i < started.size(); ++i) {
      for (size_t j = i + 1; j < started.size(); ++j) {
        auto& a = *started[i];
        auto& b = *started[j]; // started after a
        if (b.created_us < a.created_us && b.created_seq < a.created_seq)
          out.push_back("key " + key + ": " + a.id + " started before " + b.id
                        + ", which was created before it (by clock and by log)");
      }
    }
  }
  return out;
}

size_t most_at_once_by_seq(const std::map<std::string, op_span>& spans,
                           const std::string& workflow) {
  std::vector<std::pair<int64_t, int64_t>> iv;
  for (auto& [id, s] : spans)
    if (s.workflow == workflow && s.start_seq != 0)
      iv.emplace_back(s.start_seq, open_end(s.end_seq));
  return most_open(std::move(iv));
}

size_t most_at_once_by_time(const std::map<std::string, op_span>& spans,
                            const std::string& workflow) {
  std::vector<std::pair<int64_t, int64_t>> iv;
  for (auto& [id, s] : spans)
    if (s.workflow == workflow && s.first_effect_us != 0)
      iv.emplace_back(s.first_effect_us, open_end(s.end_us));
  return most_open(std::move(iv));
}

} // namespace stepwise::test
