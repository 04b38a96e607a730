#include "storage/postgresql.hpp"

#include "storage/open_store.hpp"
#include "storage/pg_store.hpp"

namespace stepwise {

namespace {

caf::expected<store_ptr> open_postgresql(const std::string& uri) {
  auto st = pg_store::open(uri);
  if (!st)
    return std::move(st.error());
  return store_ptr{std::move(*st)};
}

} // namespace

void use_postgresql() {
  add_store_scheme("postgresql://", open_postgresql);
  add_store_scheme("postgres://", open_postgresql);
}

} // namespace stepwise
