#include "tools/command_store.hpp"

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tools/log.hpp"

namespace stepwise::tools {

store_ptr open_command_store(const serve_options& o) {
  auto st = open_store(o.store);
  if (!st) {
    log(log_level::error,
        "cannot open the store " + redact_uri(o.store) + ": " + message_of(st.error()));
    return nullptr;
  }
  return std::move(*st);
}

} // namespace stepwise::tools
