#include "tests/storage/store_backends.hpp"

#include <cstdlib>
#include <filesystem>
#include <memory>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "storage/sqlite_store.hpp"
#include "tests/storage/pg_test_schema.hpp"

namespace stepwise::test {

// -- temp_dir -----------------------------------------------------------------

temp_dir::temp_dir() {
  auto base = std::filesystem::temp_directory_path() / "stepwise-test-XXXXXX";
  std::string templ = base.string();
  if (mkdtemp(templ.data()) == nullptr)
    FAIL("mkdtemp failed for " << templ);
  path_ = templ;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string temp_dir::file(const std::string& name) const {
  return (std::filesystem::path{path_} / name).string();
}

// -- factories ----------------------------------------------------------------

namespace {

store_ptr make_sqlite_store() {
  auto dir = std::make_shared<temp_dir>();
  sqlite_options opts;
  opts.check_admission = true; // every round of the suite checks the mirror
  auto opened = sqlite_store::open(dir->file("store.db"), opts);
  if (!opened)
    FAIL("opening a SQLite store failed: " << message_of(opened.error()));
  std::shared_ptr<sqlite_store> owner = std::move(*opened);
  auto* ptr = owner.get();
  // The store closes its file before the directory goes.
  return store_ptr{ptr, [owner, dir](store*) mutable {
                     owner.reset();
                     dir.reset();
                   }};
}

// Each PostgreSQL store gets a schema of its own in the test database,
// dropped when the store goes: every test expects an empty store (seq
// starting at 1, empty lists).
store_ptr make_pg_store(const std::string& uri) {
  return make_fresh_pg_store(uri);
}

} // namespace

std::vector<std::pair<std::string, store_factory>> test_backends() {
  std::vector<std::pair<std::string, store_factory>> out;
  out.emplace_back("sqlite", make_sqlite_store);
  if (const char* uri = std::getenv("STEPWISE_TEST_PG_URI"); uri != nullptr && *uri != '\0') {
    std::string pg_uri{uri};
    out.emplace_back("postgresql", [pg_uri] { return make_pg_store(pg_uri); });
  }
  return out;
}

} // namespace stepwise::test
