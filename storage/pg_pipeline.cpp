#include "storage/pg_pipeline.hpp"

#include <poll.h>

#include "engine/errc.hpp"

namespace stepwise {

pg_pipeline::pg_pipeline(pg_connection& conn, std::chrono::milliseconds io_timeout)
  : conn_(conn), io_timeout_(io_timeout) {
  // nop
}

pg_pipeline::~pg_pipeline() {
  if (!active_)
    return;
  auto* c = conn_.get();
  // Leaving requires every result read; a caller that bailed out early
  // leaves the protocol state unknown, so the connection is given up.
  if (PQpipelineStatus(c) != PQ_PIPELINE_OFF && PQexitPipelineMode(c) != 1)
    conn_.poison();
  PQsetnonblocking(c, 0);
}

caf::error pg_pipeline::start() {
  auto* c = conn_.get();
  if (PQenterPipelineMode(c) != 1)
    return conn_.fail("enter pipeline mode");
  active_ = true;
  if (PQsetnonblocking(c, 1) != 0)
    return conn_.fail("set nonblocking");
  return caf::none;
}

caf::error pg_pipeline::send(const char* sql, pg_params& params) {
  if (PQsendQueryParams(conn_.get(), sql, params.size(), nullptr, params.values(), params.lengths(),
                        params.formats(), 0)
      != 1)
    return conn_.fail("send");
  return caf::none;
}

caf::error pg_pipeline::send_prepared(const char* name, pg_params& params) {
  if (PQsendQueryPrepared(conn_.get(), name, params.size(), params.values(), params.lengths(),
                          params.formats(), 0)
      != 1)
    return conn_.fail(std::string{"send "} + name);
  return caf::none;
}

caf::error pg_pipeline::sync() {
  if (PQpipelineSync(conn_.get()) != 1)
    return conn_.fail("pipeline sync");
  return flush();
}

caf::error pg_pipeline::flush() {
  auto* c = conn_.get();
  for (;;) {
    auto rc = PQflush(c);
    if (rc == 0)
      return caf::none;
    if (rc < 0)
      return conn_.fail("flush");
    pollfd pfd{PQsocket(c), POLLIN | POLLOUT, 0};
    auto n = ::poll(&pfd, 1, static_cast<int>(io_timeout_.count()));
    if (n == 0)
      return make_error(errc::store_failure, "pg: flush: no progress within the I/O timeout");
    if (n < 0 && errno != EINTR)
      return make_error(errc::store_failure, "pg: flush: poll failed");
    // Reading what the server sent lets it go on reading our statements.
    if ((pfd.revents & POLLIN) != 0 && PQconsumeInput(c) != 1)
      return conn_.fail("flush");
  }
}

caf::expected<pg_result> pg_pipeline::result(std::string_view what) {
  auto* c = conn_.get();
  pg_result r{PQgetResult(c)};
  if (!r)
    return conn_.fail(what);
  // Each statement's results end with a null result.
  auto st = r.status();
  if (st != PGRES_PIPELINE_SYNC) {
    while (auto* extra = PQgetResult(c))
      PQclear(extra);
  }
  switch (st) {
    case PGRES_COMMAND_OK:
    case PGRES_TUPLES_OK:
      return r;
    case PGRES_PIPELINE_ABORTED:
      return make_error(errc::store_failure,
                        "pg: " + std::string{what} + ": skipped after an error");
    case PGRES_PIPELINE_SYNC:
      return make_error(errc::store_failure, "pg: " + std::string{what} + ": result missing");
    default:
      return conn_.fail(what, r);
  }
}

caf::error pg_pipeline::await_sync() {
  auto* c = conn_.get();
  for (int nulls = 0; nulls < 2;) {
    pg_result r{PQgetResult(c)};
    if (!r) {
      // Two nulls in a row: nothing more will come (connection lost).
      if (conn_.broken() || ++nulls == 2)
        return conn_.fail("await sync");
      continue;
    }
    nulls = 0;
    if (r.status() == PGRES_PIPELINE_SYNC)
      return caf::none;
  }
  return conn_.fail("await sync");
}

} // namespace stepwise
