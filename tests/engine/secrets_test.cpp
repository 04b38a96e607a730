// Key rings, AES-256-GCM sealing and sealed values inside JSON documents.
#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/key_ring.hpp"
#include "engine/sealed_json.hpp"
#include "engine/secret_box.hpp"
#include "engine/step_context.hpp"
#include "tests/engine/test_keys.hpp"

using namespace stepwise;
using test::key_a;
using test::key_b;
using test::test_ring;

namespace {

std::string error_of(const caf::error& e) {
  return message_of(e);
}

boost::json::object parse_object(const char* text) {
  return boost::json::parse(text).as_object();
}

} // namespace

TEST_CASE("a key file is one 'ID BASE64' a line; the first key seals", "[engine][secrets]") {
  auto r =
    test_ring("# rotated on Monday\n\nnew " + key_b + "\nold " + key_a + "  # the first key\n");
  CHECK(r.current().id == "new");
  CHECK(r.ids() == std::vector<std::string>{"new", "old"});
  CHECK(r.find("old") != nullptr);
  CHECK(r.find("gone") == nullptr);
}

TEST_CASE("a malformed key file is refused by line, never quoting a key", "[engine][secrets]") {
  auto refused = [](const std::string& text) {
    auto r = key_ring::parse(text, "f");
    REQUIRE(!r);
    CHECK(code_of(r.error()) == errc::invalid_argument);
    return error_of(r.error());
  };
  CHECK(refused("").find("no key") != std::string::npos);
  CHECK(refused("k1\n").find("f:1:") != std::string::npos);
  auto short_key = refused("k1 c2hvcnQ=\n");
  CHECK(short_key.find("f:1:") != std::string::npos);
  CHECK(short_key.find("c2hvcnQ") == std::string::npos);
  // 33 characters of base64 are not 32 bytes either.
  CHECK(refused("k1 " + key_a.substr(0, 43) + "A\n").find("32 bytes") != std::string::npos);
  CHECK(refused("bad/id " + key_a + "\n").find("key id") != std::string::npos);
  auto twice = refused("k1 " + key_a + "\nk1 " + key_b + "\n");
  CHECK(twice.find("twice") != std::string::npos);
  CHECK(twice.find(key_b) == std::string::npos);
  CHECK(refused("k1 " + key_a + " extra\n").find("2 fields") != std::string::npos);
}

TEST_CASE("a generated key reads back from its key file line", "[engine][secrets]") {
  auto k = key_ring::generate("k20260101");
  REQUIRE(k);
  auto r = test_ring(key_ring::line_of(*k));
  CHECK(r.current().id == "k20260101");
  CHECK(r.current().bytes == k->bytes);
  auto other = key_ring::generate("k20260101");
  REQUIRE(other);
  CHECK(other->bytes != k->bytes);
}

TEST_CASE("sealing uses a fresh nonce and names its key", "[engine][secrets]") {
  auto r = test_ring("k1 " + key_a + "\n");
  auto x = secret_box::seal(r, "hunter2", "op-1");
  auto y = secret_box::seal(r, "hunter2", "op-1");
  REQUIRE(x);
  REQUIRE(y);
  CHECK(*x != *y);
  CHECK(x->rfind("1:k1:", 0) == 0);
  CHECK(x->find("hunter2") == std::string::npos);
  CHECK(secret_box::key_id_of(*x) == "k1");
  auto back = secret_box::open(&r, *x, "op-1");
  REQUIRE(back);
  CHECK(*back == "hunter2");
}

TEST_CASE("a value opens only with its key, unchanged, for its owner", "[engine][secrets]") {
  auto r = test_ring("k1 " + key_a + "\n");
  auto sealed = secret_box::seal(r, "hunter2", "op-1");
  REQUIRE(sealed);
  auto fails = [&](const key_ring* keys, const std::string& text, const char* owner) {
    auto res = secret_box::open(keys, text, owner);
    REQUIRE(!res);
    CHECK(code_of(res.error()) == errc::secret_key);
    auto msg = error_of(res.error());
    CHECK(msg.find("'k1'") != std::string::npos);
    CHECK(msg.find("hunter2") == std::string::npos);
    return msg;
  };
  // Missing: no ring at all, or no key of that id.
  CHECK(fails(nullptr, *sealed, "op-1").find("no key ring") != std::string::npos);
  auto other = test_ring("k2 " + key_b + "\n");
  CHECK(fails(&other, *sealed, "op-1").find("has no key 'k1' (it has: k2)") != std::string::npos);
  // Wrong: another key under the same id.
  auto impostor = test_ring("k1 " + key_b + "\n");
  CHECK(fails(&impostor, *sealed, "op-1").find("not the one it was sealed with")
        != std::string::npos);
  // Moved to another operation, or changed.
  fails(&r, *sealed, "op-2");
  auto changed = *sealed;
  changed[10] = changed[10] == 'A' ? 'B' : 'A';
  fails(&r, changed, "op-1");
  auto malformed = secret_box::open(&r, "1:k1:not base64!", "op-1");
  REQUIRE(!malformed);
  CHECK(code_of(malformed.error()) == errc::invalid_argument);
}

TEST_CASE("secret paths of a document are sealed and open again", "[engine][secrets]") {
  auto r = test_ring("k1 " + key_a + "\n");
  auto doc = parse_object(R"({"name":"rt1","loc":{"name":"dc1","properties":{"password":"pw1"}}})");
  REQUIRE(!seal_paths(doc, {"/loc/properties", "/absent"}, &r, "op-1"));
  CHECK(doc.at("name") == "rt1");
  CHECK(doc.at("loc").at("name") == "dc1");
  auto& sealed = doc.at("loc").at("properties");
  CHECK(is_sealed(sealed));
  CHECK(boost::json::serialize(doc).find("pw1") == std::string::npos);
  CHECK(holds_sealed(doc));
  // Sealing again leaves a sealed value as it is.
  auto before = boost::json::serialize(doc);
  REQUIRE(!seal_paths(doc, {"/loc/properties"}, &r, "op-1"));
  CHECK(boost::json::serialize(doc) == before);
  auto opened = open_all(std::make_shared<const boost::json::object>(doc), &r, "op-1");
  REQUIRE(opened);
  CHECK((*opened)->at("loc").at("properties").at("password") == "pw1");
  CHECK(!holds_sealed(**opened));
  auto masked = doc;
  mask_sealed(masked);
  CHECK(masked.at("loc").at("properties") == "***");
}

TEST_CASE("a document without sealed values is not copied to be opened", "[engine][secrets]") {
  auto doc = std::make_shared<const boost::json::object>(parse_object(R"({"a":1})"));
  auto opened = open_all(doc, nullptr, "op-1");
  REQUIRE(opened);
  CHECK(opened->get() == doc.get());
}

TEST_CASE("without a key ring values are sealed in the plain form", "[engine][secrets]") {
  auto doc = parse_object(R"({"token":"t0k"})");
  REQUIRE(!seal_paths(doc, {"/token"}, nullptr, "op-1"));
  CHECK(is_sealed(doc.at("token")));
  CHECK(doc.at("token").at("$sealed") == "plain");
  auto opened = open_all(std::make_shared<const boost::json::object>(doc), nullptr, "op-1");
  REQUIRE(opened);
  CHECK((*opened)->at("token") == "t0k");
}

TEST_CASE("resealing puts every value under the current key", "[engine][secrets]") {
  auto old_ring = test_ring("k1 " + key_a + "\n");
  auto doc = parse_object(R"({"a":{"pw":"x"},"b":[{"pw":"y"}],"c":"z","d":"plain"})");
  REQUIRE(!seal_paths(doc, {"/a"}, &old_ring, "op-1"));
  REQUIRE(!seal_paths(doc, {"/b/0"}, &old_ring, "op-1"));
  REQUIRE(!seal_paths(doc, {"/c"}, nullptr, "op-1"));
  auto rotated = test_ring("k2 " + key_b + "\nk1 " + key_a + "\n");
  REQUIRE(!seal_paths(doc, {"/d"}, &rotated, "op-1"));
  auto d_before = boost::json::serialize(doc.at("d"));
  auto n = reseal_all(doc, rotated, "op-1");
  REQUIRE(n);
  CHECK(*n == 3);
  CHECK(boost::json::serialize(doc.at("d")) == d_before);
  for (auto* v : {&doc.at("a"), &doc.at("b").at(0), &doc.at("c")})
    CHECK(secret_box::key_id_of(v->at("$sealed").as_string()) == "k2");
  // The old key may go now.
  auto new_only = test_ring("k2 " + key_b + "\n");
  auto opened = open_all(std::make_shared<const boost::json::object>(doc), &new_only, "op-1");
  REQUIRE(opened);
  CHECK(boost::json::serialize(**opened)
        == R"({"a":{"pw":"x"},"b":[{"pw":"y"}],"c":"z","d":"plain"})");
  auto again = reseal_all(doc, rotated, "op-1");
  REQUIRE(again);
  CHECK(*again == 0);
}

TEST_CASE("a step keeps a secret sealed in its data and reads it back", "[engine][secrets]") {
  auto keys = std::make_shared<const key_ring>(test_ring("k1 " + key_a + "\n"));
  step_context ctx{"op-1",  "s", 1,   std::make_shared<boost::json::object>(), {}, {},
                   nullptr, {},  keys};
  REQUIRE(ctx.keep_secret("api_token", "tok-9"));
  CHECK(is_sealed(ctx.data().at("api_token")));
  CHECK(boost::json::serialize(ctx.data()).find("tok-9") == std::string::npos);
  auto back = ctx.secret("api_token");
  REQUIRE(back);
  REQUIRE(*back);
  CHECK(**back == "tok-9");
  auto none = ctx.secret("absent");
  REQUIRE(none);
  CHECK(!*none);
  CHECK(ctx.take_revealed() == std::vector<std::string>{"tok-9", "tok-9"});
  // Read by an engine whose ring lost the key: an error naming it.
  step_context later{"op-1",     "s", 2,      std::make_shared<boost::json::object>(),
                     ctx.data(), {},  nullptr};
  auto lost = later.secret("api_token");
  REQUIRE(!lost);
  CHECK(code_of(lost.error()) == errc::secret_key);
  CHECK(error_of(lost.error()).find("'k1'") != std::string::npos);
}

TEST_CASE("a step opens the secrets of another operation it reads", "[engine][secrets]") {
  auto keys = std::make_shared<const key_ring>(test_ring("k1 " + key_a + "\n"));
  operation other;
  other.id = "op-7";
  auto input = parse_object(R"({"loc":{"properties":{"password":"pw7"}}})");
  REQUIRE(!seal_paths(input, {"/loc/properties"}, keys.get(), other.id));
  other.input = std::make_shared<const boost::json::object>(std::move(input));
  step_context ctx{"op-1",  "s", 1,   std::make_shared<boost::json::object>(), {}, {},
                   nullptr, {},  keys};
  auto opened = ctx.open_secrets(other);
  REQUIRE(opened);
  CHECK(opened->input->at("loc").at("properties").at("password") == "pw7");
  CHECK(ctx.take_revealed() == std::vector<std::string>{"pw7"});
  // Sealed for op-7: not openable as another operation's.
  other.id = "op-8";
  CHECK(!ctx.open_secrets(other));
}
