#include "http/errors.hpp"

#include <caf/sec.hpp>

#include "engine/errc.hpp"

namespace stepwise::http {

namespace {

struct mapping {
  errc code;
  int status;
};

// The one place that decides how engine errors look over HTTP. Timeouts are
// 503 (not 504) so that clients see one "retry later" status; a start that
// timed out may still have happened, which an idempotency key makes safe.
constexpr mapping table[] = {
  {errc::unknown_workflow, 400},   {errc::invalid_argument, 400},     {errc::not_found, 404},
  {errc::invalid_state, 409},      {errc::idempotency_conflict, 409}, {errc::stale_revision, 409},
  {errc::store_failure, 503},      {errc::shutting_down, 503},        {errc::timeout, 503},
  {errc::invalid_definition, 500}, {errc::secret_key, 500},           {errc::overloaded, 503},
  {errc::stale_task, 409},
};

} // namespace

api_error from_engine(const caf::error& err) {
  if (auto x = code_of(err); x != errc{}) {
    for (auto& m : table)
      if (m.code == x)
        return {m.status, to_string(x), message_of(err)};
    return {500, "internal_error", message_of(err)};
  }
  // Errors of the actor system itself: the engine did not answer in time or
  // is gone. Both are transient from the client's point of view.
  if (err.category() == caf::atom("system")) {
    auto sec = static_cast<caf::sec>(err.code());
    if (sec == caf::sec::request_timeout)
      return {503, "timeout", message_of(err)};
    return {503, "unavailable", message_of(err)};
  }
  return {500, "internal_error", message_of(err)};
}

std::string code_for_status(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 411:
      return "length_required";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 416:
      return "range_not_satisfiable";
    case 417:
      return "expectation_failed";
    case 431:
      return "header_too_large";
    case 503:
      return "unavailable";
    default:
      return status >= 500 ? "internal_error" : "bad_request";
  }
}

} // namespace stepwise::http
