#include "engine/errc.hpp"

#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace stepwise {

std::string to_string(errc x) {
  switch (x) {
    case errc::unknown_workflow:
      return "unknown_workflow";
    case errc::invalid_argument:
      return "invalid_argument";
    case errc::not_found:
      return "not_found";
    case errc::invalid_state:
      return "invalid_state";
    case errc::idempotency_conflict:
      return "idempotency_conflict";
    case errc::store_failure:
      return "store_failure";
    case errc::shutting_down:
      return "shutting_down";
    case errc::timeout:
      return "timeout";
    case errc::invalid_definition:
      return "invalid_definition";
    case errc::stale_revision:
      return "stale_revision";
    case errc::delivery_failed:
      return "delivery_failed";
    case errc::secret_key:
      return "secret_key";
    case errc::overloaded:
      return "overloaded";
    case errc::stale_task:
      return "stale_task";
  }
  return "unknown";
}

caf::error make_error(errc x, std::string context) {
  return caf::error{static_cast<uint8_t>(x), error_category, caf::make_message(std::move(context))};
}

caf::error make_error(errc x) {
  return caf::error{static_cast<uint8_t>(x), error_category};
}

errc code_of(const caf::error& e) {
  // CAF 0.17 dereferences the missing data of an empty error.
  if (!e || e.category() != error_category)
    return errc{};
  return static_cast<errc>(e.code());
}

std::string message_of(const caf::error& e) {
  if (!e)
    return "no error";
  if (e.category() == error_category) {
    if (e.context().match_elements<std::string>())
      return e.context().get_as<std::string>(0);
    return to_string(static_cast<errc>(e.code()));
  }
  if (e.category() == caf::atom("system")) {
    if (e.code() == static_cast<uint8_t>(caf::sec::request_timeout))
      return "the engine did not answer in time";
    return "actor system error " + caf::to_string(static_cast<caf::sec>(e.code()));
  }
  return "error " + std::to_string(e.code());
}

} // namespace stepwise
