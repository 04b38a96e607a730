#include "storage/schema_version.hpp"

#include "engine/errc.hpp"

namespace stepwise {

caf::error newer_schema_error(const std::string& where, int64_t have, int64_t known) {
  return make_error(errc::store_failure,
                    where + ": the database is at schema version " + std::to_string(have)
                      + ", this stepwise knows up to " + std::to_string(known)
                      + ": upgrade stepwise, or restore a backup (nothing was written)");
}

} // namespace stepwise
