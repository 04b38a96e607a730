#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json.hpp>

#include "engine/stop.hpp"
#include "engine/time.hpp"

namespace stepwise::infra {

/// What a driver call can fail with: the error kinds of the Ignition
/// Infrastructure driver. The gateway maps them to HTTP statuses and the
/// monitor decides from them whether to poll again.
enum class error_kind : uint8_t {
  /// The template is empty or cannot be parsed (create, find): 400.
  invalid_template,
  /// No infrastructure has that id (delete, get task): 400.
  not_found,
  /// No request has that id (get task): 400.
  request_not_found,
  /// The request cannot be handled now; try again later: 503.
  temporary,
  /// The deployment location cannot be reached: 400 (the monitor polls again).
  unreachable_location,
  /// Any other driver error: 500.
  infrastructure_error,
};

std::string_view to_string(error_kind x);

/// A failed driver call. `message` never contains secret values.
struct error {
  error_kind kind = error_kind::infrastructure_error;
  std::string message;
};

/// A driver call's result: a value or an `error`. Drivers never throw.
template <class T>
using result = std::variant<T, error>;

/// The status of an asynchronous create or delete task.
enum class task_status : uint8_t { in_progress, complete, failed };

std::string_view to_string(task_status x); // "IN_PROGRESS", "COMPLETE", "FAILED"
std::optional<task_status> parse_task_status(std::string_view s);

/// Why a task failed.
enum class failure_code : uint8_t {
  resource_already_exists,
  resource_not_found,
  infrastructure_error,
  insufficient_capacity,
  internal_error,
};

std::string_view to_string(failure_code x); // "RESOURCE_ALREADY_EXISTS", ...
std::optional<failure_code> parse_failure_code(std::string_view s);

struct failure_details {
  failure_code code = failure_code::internal_error;
  std::string description;
};

/// Where infrastructure lives: `name` is required; `type` and `properties`
/// are passed through to the driver (properties may hold credentials, so
/// they are never logged or echoed).
struct deployment_location {
  std::string name;
  std::string type;
  boost::json::object properties;
};

/// The body of a create request (Ignition's CreateInfrastructureRequest).
/// `system_properties` and `properties` map names to `{"value", "type"}`
/// objects (or plain strings, which drivers also accept).
struct create_request {
  std::string template_text;
  std::string template_type;
  boost::json::object system_properties;
  boost::json::object properties;
  deployment_location location;
};

/// A started create or delete task.
struct accepted {
  std::string infrastructure_id;
  std::string request_id;
};

/// The state of a create or delete task.
struct task {
  std::string infrastructure_id;
  std::string request_id;
  task_status status = task_status::in_progress;
  /// Set when `status` is `failed`.
  std::optional<failure_details> failure;
  /// Output values of the template (complete creates).
  boost::json::object outputs;
};

/// Infrastructure that `find` matched.
struct found {
  std::string infrastructure_id;
  boost::json::object outputs;
};

/// Receives the answer of a driver call.
template <class T>
using callback = std::function<void(result<T>)>;

/// The one interface in front of every infrastructure backend (the
/// simulated cloud, an external Ignition driver over HTTP). Asynchronous:
/// a call starts the request and returns; its callback gets the answer
/// exactly once, later or before the call returns, on whichever thread the
/// driver answers on (its I/O thread, the clock's). Callbacks must be cheap
/// and must not block: send a message, complete an `async_call`. Waiting
/// for an answer holds no thread, so thousands of calls may be in flight.
/// Implementations are thread-safe.
class driver {
public:
  virtual ~driver() = default;

  /// Starts creating infrastructure; answers at once with its ids. Once
  /// `stop` is requested (the step that made the call timed out, or its
  /// operation was canceled or paused) the call is given up: a driver that
  /// talks to a remote one ends its request (answering `temporary`).
  virtual void create(const create_request& req, callback<accepted> done,
                      const stop_token& stop) = 0;

  /// Returns the state of the task `request_id` on `infrastructure_id`.
  virtual void get_task(const std::string& infrastructure_id, const std::string& request_id,
                        const deployment_location& loc, callback<task> done) = 0;

  /// Starts deleting infrastructure; answers at once with its ids. `stop`
  /// as for `create`.
  virtual void remove(const std::string& infrastructure_id, const deployment_location& loc,
                      callback<accepted> done, const stop_token& stop) = 0;

  /// Finds infrastructure that exists, is not deleted, and whose
  /// `resourceName` system property equals `instance_name`; `nullopt` when
  /// none does.
  virtual void find(const std::string& template_text, const std::string& template_type,
                    const std::string& instance_name, const deployment_location& loc,
                    callback<std::optional<found>> done) = 0;
};

/// Calls `start` with a callback and waits for the answer, at most
/// `timeout` (then a `temporary` error). For threads that may block (HTTP
/// workers, tests); never on a CAF scheduler thread.
template <class T, class Start>
result<T> wait_for(Start start, duration timeout) {
  auto slot = std::make_shared<std::promise<result<T>>>();
  auto answer = slot->get_future();
  start([slot](result<T> r) { slot->set_value(std::move(r)); });
  if (answer.wait_for(timeout) != std::future_status::ready)
    return error{error_kind::temporary, "the driver did not answer in time"};
  return answer.get();
}

} // namespace stepwise::infra
