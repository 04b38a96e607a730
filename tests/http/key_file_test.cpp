// The key ring settings of stepwise serve (tools/key_file): where the key
// file of a SQLite store lives, its first start, and the refusals.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "tests/http/fake_env.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/secrets_support.hpp"
#include "tools/key_file.hpp"

using namespace stepwise;
using namespace stepwise::tools;
using stepwise::test::fake_env;
using stepwise::test::temp_dir;

namespace {

serve_options options(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  auto o = parse_serve_options(args, fake_env(std::move(env)));
  REQUIRE(o);
  return *o;
}

} // namespace

TEST_CASE("a SQLite store's key file sits beside it, outside its own files", "[cli][secrets]") {
  CHECK(default_key_file("./stepwise.db") == "./stepwise.keys");
  CHECK(default_key_file("/var/lib/sw/ops.sqlite3") == "/var/lib/sw/ops.keys");
  CHECK(default_key_file("/var/lib/sw.d/ops") == "/var/lib/sw.d/ops.keys");
  CHECK(default_key_file("ops") == "ops.keys");
  CHECK(default_key_file(".hidden") == ".hidden.keys");
}

TEST_CASE("serve makes the key file of a SQLite store once, then reads it", "[cli][secrets]") {
  temp_dir dir;
  auto o = options({"--store", "sqlite:" + dir.path + "/sw.db?synchronous=NORMAL"});
  // `secrets rotate` never makes a key: it would re-encrypt nothing.
  auto none = keys_for(o, false);
  REQUIRE_FALSE(none);
  CHECK(message_of(none.error()).find("no key file") != std::string::npos);
  auto made = keys_for(o, true);
  REQUIRE(made);
  REQUIRE(*made);
  struct stat st {};
  REQUIRE(::stat((dir.path + "/sw.keys").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto again = keys_for(o, true);
  REQUIRE(again);
  CHECK((*again)->current().id == (*made)->current().id);
  CHECK((*again)->current().bytes == (*made)->current().bytes);
  CHECK_FALSE(create_key_file(dir.path + "/sw.keys", "k2"));
}

TEST_CASE("a lost key file is an error, not a new key, once values are sealed", "[cli][secrets]") {
  temp_dir dir;
  auto o = options({"--store", "sqlite:" + dir.path + "/sw.db"});
  auto lost = keys_for(o, true, [] { return caf::expected<bool>{true}; });
  REQUIRE_FALSE(lost);
  CHECK(message_of(lost.error()).find("is missing, but the database holds") != std::string::npos);
  struct stat st {};
  CHECK(::stat((dir.path + "/sw.keys").c_str(), &st) != 0);
  auto broken = keys_for(
    o, true, [] { return caf::expected<bool>{make_error(errc::store_failure, "disk on fire")}; });
  REQUIRE_FALSE(broken);
  CHECK(message_of(broken.error()) == "disk on fire");
  CHECK(keys_for(o, true, [] { return caf::expected<bool>{false}; }));
}

TEST_CASE("serve takes a key file, or plaintext only when told", "[cli][secrets]") {
  temp_dir dir;
  auto file = dir.path + "/ring";
  test::write_private(file, "# rotated\n" + test::new_key_line("b") + test::new_key_line("a"));
  auto o = options({"--store", "postgresql://db/sw"}, {{"STEPWISE_SECRET_KEY_FILE", file}});
  CHECK(o.secret_key_file == file);
  auto ring = keys_for(o, true);
  REQUIRE(ring);
  CHECK((*ring)->ids() == std::vector<std::string>{"b", "a"});
  auto plain =
    keys_for(options({"--store", "postgresql://db/sw", "--insecure-plaintext-secrets"}), true);
  REQUIRE(plain);
  CHECK_FALSE(*plain);
  auto refused = keys_for(options({"--store", "postgresql://db/sw"}), true);
  REQUIRE_FALSE(refused);
  auto why = message_of(refused.error());
  CHECK(why.find("needs a key") != std::string::npos);
  CHECK(why.find("openssl rand -base64 32") != std::string::npos);
  CHECK(why.find("--insecure-plaintext-secrets") != std::string::npos);
  auto missing = keys_for(options({"--secret-key-file", dir.path + "/nope"}), true);
  REQUIRE_FALSE(missing);
  CHECK(message_of(missing.error()).find("nope") != std::string::npos);
  auto both =
    parse_serve_options({"--secret-key-file", file, "--insecure-plaintext-secrets"}, fake_env({}));
  REQUIRE_FALSE(both);
  CHECK(message_of(both.error()).find("exclude each other") != std::string::npos);
  auto help = serve_help();
  CHECK_THAT(help, Catch::Contains("--secret-key-file FILE"));
  CHECK_THAT(help, Catch::Contains("--insecure-plaintext-secrets\n"));
  CHECK_THAT(help, Catch::Contains("STEPWISE_SECRET_KEY_FILE"));
}
