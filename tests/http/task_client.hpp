#pragma once

#include <string>

#include <boost/json.hpp>

#include "tests/http/fixture.hpp"

/// A worker of the HTTP tests: takes tasks and answers them.
namespace stepwise::test {

inline const std::string tasks_base = "/api/v1/tasks";

/// Polls `queue` until the task of operation `id` comes (bounded); fails
/// the test when it never does.
boost::json::object take_task(const http_fixture& fx, const std::string& id,
                              const std::string& queue);

/// Sends `verb` (heartbeat, complete, fail) with `body` for task `t`.
reply answer_task(const http_fixture& fx, const boost::json::object& t, const std::string& verb,
                  const std::string& body = "{}");

} // namespace stepwise::test
