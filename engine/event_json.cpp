#include "engine/event_json.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "engine/json_text.hpp"

namespace stepwise {

boost::json::object event_json(const event& e) {
  boost::json::object out;
  // Extra fields first so that they can never shadow the standard ones.
  for (auto& kv : e.extra)
    out[kv.key()] = kv.value();
  out["seq"] = e.seq;
  out["time"] = format_time(e.time);
  out["operation_id"] = e.operation_id;
  out["type"] = to_string(e.type);
  if (!e.step.empty())
    out["step"] = e.step;
  if (e.attempt != 0)
    out["attempt"] = e.attempt;
  if (!e.state.empty())
    out["state"] = e.state;
  if (!e.error.empty())
    out["error"] = e.error;
  if (!e.by.empty())
    out["by"] = e.by;
  else
    out.erase("by"); // never an extra field's
  return out;
}

void append_event_json(std::string& out, const event& e) {
  out += '{';
  bool first = true;
  auto key = [&](std::string_view k) {
    if (!first)
      out += ',';
    first = false;
    json_text::append_string(out, k);
    out += ':';
  };
  static constexpr std::string_view standard[] = {
    "seq", "time", "operation_id", "type", "step", "attempt", "state", "error", "by"};
  for (auto& kv : e.extra) {
    if (std::find(std::begin(standard), std::end(standard), kv.key()) != std::end(standard))
      continue;
    key(kv.key());
    json_text::append_value(out, kv.value());
  }
  key("seq");
  out += std::to_string(e.seq);
  key("time");
  json_text::append_string(out, format_time(e.time));
  key("operation_id");
  json_text::append_string(out, e.operation_id);
  key("type");
  json_text::append_string(out, to_string(e.type));
  if (!e.step.empty()) {
    key("step");
    json_text::append_string(out, e.step);
  }
  if (e.attempt != 0) {
    key("attempt");
    out += std::to_string(e.attempt);
  }
  if (!e.state.empty()) {
    key("state");
    json_text::append_string(out, e.state);
  }
  if (!e.error.empty()) {
    key("error");
    json_text::append_string(out, e.error);
  }
  if (!e.by.empty()) {
    key("by");
    json_text::append_string(out, e.by);
  }
  out += '}';
}

} // namespace stepwise
