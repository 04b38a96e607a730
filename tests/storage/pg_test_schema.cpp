#include "tests/storage/pg_test_schema.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <catch2/catch.hpp>
#include <libpq-fe.h>
#include <unistd.h>

#include "engine/errc.hpp"

namespace stepwise::test {

namespace {

// Returns `uri` with one more query parameter.
std::string with_param(const std::string& uri, const std::string& kv) {
  return uri + (uri.find('?') == std::string::npos ? '?' : '&') + kv;
}

// Runs `sql` on a connection of its own; returns the first value of the
// first row, or the error in `err`.
std::string try_admin(const std::string& uri, const std::string& sql, std::string& err) {
  auto* conn = PQconnectdb(uri.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    err = PQerrorMessage(conn);
    PQfinish(conn);
    return {};
  }
  PQsetNoticeProcessor(
    conn, [](void*, const char*) {}, nullptr);
  auto* r = PQexec(conn, sql.c_str());
  auto st = PQresultStatus(r);
  std::string out;
  if (st == PGRES_TUPLES_OK && PQntuples(r) > 0 && PQnfields(r) > 0)
    out = PQgetvalue(r, 0, 0);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
    err = PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(conn);
  return out;
}

std::string run_admin(const std::string& uri, const std::string& sql) {
  std::string err;
  auto out = try_admin(uri, sql, err);
  if (!err.empty())
    FAIL("admin SQL failed: " << sql << ": " << err);
  return out;
}

std::string terminate_sql(const std::string& app) {
  return "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
         "WHERE application_name = '"
         + app + "'";
}

} // namespace

std::optional<std::string> pg_test_uri() {
  if (const char* uri = std::getenv("STEPWISE_TEST_PG_URI"); uri != nullptr && *uri != '\0')
    return std::string{uri};
  return std::nullopt;
}

pg_test_schema::pg_test_schema(const std::string& base_uri) : base_uri_(base_uri) {
  static std::atomic<int> counter{0};
  name_ = "t_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  run_admin(base_uri_, "CREATE SCHEMA " + name_);
  uri_ = with_param(with_param(base_uri_, "options=-csearch_path%3D" + name_),
                    "application_name=" + name_);
}

pg_test_schema::~pg_test_schema() {
  // Never throws (a destructor): a schema left behind goes with the
  // throwaway cluster. Sessions still open would block the DROP.
  std::string err;
  try_admin(base_uri_, terminate_sql(name_), err);
  try_admin(base_uri_, "DROP SCHEMA IF EXISTS " + name_ + " CASCADE", err);
}

std::shared_ptr<pg_store> pg_test_schema::open() const {
  auto st = pg_store::open(uri_);
  if (!st)
    FAIL("opening the PostgreSQL store failed: " << message_of(st.error()));
  return std::move(*st);
}

std::string pg_test_schema::admin(const std::string& sql) const {
  return run_admin(base_uri_, sql);
}

void pg_test_schema::cut_connections() const {
  run_admin(base_uri_, terminate_sql(name_));
  // Termination is asynchronous: wait until the sessions are gone, so the
  // caller's next call surely meets a dead connection.
  auto count = "SELECT count(*) FROM pg_stat_activity WHERE "
               "application_name = '"
               + name_ + "'";
  for (int i = 0; i < 500 && run_admin(base_uri_, count) != "0"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

std::unique_ptr<pg_test_schema> pg_schema_or_skip() {
  auto uri = pg_test_uri();
  if (!uri) {
    WARN("STEPWISE_TEST_PG_URI is not set: PostgreSQL test skipped");
    return nullptr;
  }
  return std::make_unique<pg_test_schema>(*uri);
}

store_ptr make_fresh_pg_store(const std::string& base_uri) {
  auto schema = std::make_shared<pg_test_schema>(base_uri);
  std::shared_ptr<pg_store> owner = schema->open();
  auto* ptr = owner.get();
  // The store closes its connections before the schema is dropped.
  return store_ptr{ptr, [owner, schema](store*) mutable {
                     owner.reset();
                     schema.reset();
                   }};
}

} // namespace stepwise::test
