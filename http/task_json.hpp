#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "engine/task_requests.hpp"
#include "http/errors.hpp"

/// The JSON of the task routes (`/api/v1/tasks`): what workers send, and
/// the tasks and queues they are shown.
namespace stepwise::http {

/// `{"queue", "worker", "max"?, "wait"?}` (max 1 to 100, default 1; wait
/// a duration such as "20s", default none).
std::optional<api_error> decode_task_poll(const boost::json::value& body, task_poll& out);

/// `{"details"?}` (an object), or an empty body.
std::optional<api_error> decode_task_beat(const boost::json::value& body, task_beat& out);

/// `{"data"?}` for a completion; `{"error", "retry_after"?,
/// "non_retryable"?}` for a failure (`out.what` says which is read).
std::optional<api_error> decode_task_answer(const boost::json::value& body, task_answer& out);

boost::json::object to_json(const task_lease& t);

/// A queue, with its oldest ready task's age at `now`.
boost::json::object to_json(const task_queue_view& q, time_point now);

} // namespace stepwise::http
