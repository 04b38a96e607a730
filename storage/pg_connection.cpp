#include "storage/pg_connection.hpp"

#include <charconv>

#include "engine/errc.hpp"

namespace stepwise {

namespace {

// libpq messages end in a newline and may span lines, indented by tabs:
// keep them on one line, one space between words.
std::string one_line(const char* msg) {
  std::string out;
  for (auto* p = msg != nullptr ? msg : ""; *p != '\0'; ++p) {
    auto c = (*p == '\n' || *p == '\t') ? ' ' : *p;
    if (c != ' ' || (!out.empty() && out.back() != ' '))
      out += c;
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

} // namespace

// -- pg_result ----------------------------------------------------------------

int64_t pg_result::int64(int row, int col) const noexcept {
  auto s = text(row, col);
  int64_t out = 0;
  std::from_chars(s.data(), s.data() + s.size(), out);
  return out;
}

std::string pg_result::error_message() const {
  return one_line(PQresultErrorMessage(r_.get()));
}

// -- pg_connection ------------------------------------------------------------

caf::expected<std::unique_ptr<pg_connection>> pg_connection::open(const std::string& uri) {
  // Defaults come first: later keywords, including those the URI expands
  // to, override them.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* vals[] = {"10", "stepwise", uri.c_str(), nullptr};
  auto* conn = PQconnectdbParams(keys, vals, 1);
  if (conn == nullptr)
    return make_error(errc::store_failure, "pg: connect: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    auto msg = one_line(PQerrorMessage(conn));
    PQfinish(conn);
    return make_error(errc::store_failure, "pg: connect: " + msg);
  }
  // Silence NOTICEs (e.g. "relation already exists, skipping"): they
  // would go to stderr.
  PQsetNoticeProcessor(
    conn, [](void*, const char*) {}, nullptr);
  // Errors without DETAIL: a constraint's "Failing row contains (...)"
  // quotes the row, input values included, and errors reach the log,
  // /readyz and 503 bodies.
  PQsetErrorVerbosity(conn, PQERRORS_TERSE);
  std::unique_ptr<pg_connection> out{new pg_connection(conn)};
  // Our statements are short; JIT compiling one whose estimated cost
  // crosses jit_above_cost (a large batch, a big table) takes longer than
  // running it.
  if (auto r = out->exec("SET jit = off", "connect"); !r)
    return std::move(r.error());
  return out;
}

pg_connection::~pg_connection() {
  PQfinish(conn_);
}

caf::expected<pg_result> pg_connection::exec(const char* sql, std::string_view what) {
  return check(PQexec(conn_, sql), what);
}

caf::expected<pg_result> pg_connection::exec(const char* sql, pg_params& params,
                                             std::string_view what) {
  return check(PQexecParams(conn_, sql, params.size(), nullptr, params.values(), params.lengths(),
                            params.formats(), 0),
               what);
}

caf::expected<pg_result> pg_connection::exec_prepared(const char* name, pg_params& params,
                                                      std::string_view what) {
  return check(PQexecPrepared(conn_, name, params.size(), params.values(), params.lengths(),
                              params.formats(), 0),
               what);
}

caf::error pg_connection::prepare(const char* name, const char* sql) {
  auto r = check(PQprepare(conn_, name, sql, 0, nullptr), std::string{"prepare "} + name);
  if (!r)
    return std::move(r.error());
  return caf::none;
}

caf::error pg_connection::fail(std::string_view what) const {
  return make_error(errc::store_failure,
                    "pg: " + std::string{what} + ": " + one_line(PQerrorMessage(conn_)));
}

caf::error pg_connection::fail(std::string_view what, const pg_result& r) const {
  auto msg = r ? r.error_message() : std::string{};
  if (msg.empty())
    return fail(what);
  return make_error(errc::store_failure, "pg: " + std::string{what} + ": " + msg);
}

caf::expected<pg_result> pg_connection::check(PGresult* raw, std::string_view what) {
  pg_result r{raw};
  if (!r)
    return fail(what);
  auto st = r.status();
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
    return r;
  return fail(what, r);
}

} // namespace stepwise
