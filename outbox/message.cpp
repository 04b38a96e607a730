#include "outbox/message.hpp"

#include <boost/json.hpp>

#include "engine/event_json.hpp"
#include "infra/completion_message.hpp"

namespace stepwise::outbox {

std::string message_id(const event& e) {
  auto request = infra::completion_request_id(e);
  return request.empty() ? std::to_string(e.seq) : request;
}

std::string event_text(const event& e) {
  std::string out;
  append_event_json(out, e);
  return out;
}

std::string webhook_body(const std::vector<event>& events, bool as_array) {
  if (!as_array && events.size() == 1)
    return event_text(events.front());
  std::string out = "[";
  for (auto& e : events) {
    if (out.size() > 1)
      out += ',';
    append_event_json(out, e);
  }
  out += ']';
  return out;
}

std::string kafka_value(const event& e) {
  if (auto msg = infra::completion_message(e))
    return boost::json::serialize(*msg);
  return event_text(e);
}

} // namespace stepwise::outbox
