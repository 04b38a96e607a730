#pragma once

#include <cstdint>

#include <caf/expected.hpp>

#include "engine/engine.hpp"

namespace stepwise::http {

/// Returns the seq of the newest event (0 for an empty log), found with
/// about 2 log2(seq) one-event reads: the engine has no call for it.
caf::expected<int64_t> last_event_seq(engine& eng);

} // namespace stepwise::http
