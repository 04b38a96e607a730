#pragma once

#include <string>

#include <caf/type_erased_tuple.hpp>

namespace stepwise::sim {

/// Returns a message in words for the trace: CAF prints the engine's
/// local-only types as `<unprintable>`.
std::string describe(const caf::type_erased_tuple& msg);

} // namespace stepwise::sim
