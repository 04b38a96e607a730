#pragma once

#include <string>
#include <vector>

#include "engine/event.hpp"

namespace stepwise::outbox {

/// Returns the stable id receivers drop duplicates by: the request id of an
/// `infrastructure_task_completed` event, the event's seq for the others.
std::string message_id(const event& e);

/// Returns the event's JSON: the `GET /api/v1/events` item.
std::string event_text(const event& e);

/// Returns what a webhook POSTs for `events`: one event object, or (with
/// `as_array`, the sink's batch setting above 1) a JSON array of them.
std::string webhook_body(const std::vector<event>& events, bool as_array);

/// Returns the value of the Kafka message of `e`: Ignition's completion
/// message for `infrastructure_task_completed`, the event's JSON else.
std::string kafka_value(const event& e);

} // namespace stepwise::outbox
