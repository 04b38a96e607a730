#pragma once

#include "engine/store.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Opens the store `o` names (migrating it, as `serve` does), for a command
/// that works on the store itself (`secrets rotate`, `ops purge`). Logs why
/// not and returns null when it cannot.
store_ptr open_command_store(const serve_options& o);

} // namespace stepwise::tools
