// Throws random bytes, random JSON and mutated valid requests at every route
// and checks that the server answers each with a 4xx (or a 2xx exactly when
// the request happened to be valid), stays up, and writes nothing for a
// rejected request.

#include <random>

#include <catch2/catch.hpp>

#include "http/body.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;
namespace json = boost::json;

namespace {

struct fuzzer {
  std::mt19937_64 rng;

  explicit fuzzer(uint64_t seed) : rng(seed) {
    // nop
  }

  size_t below(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  }

  std::string bytes(size_t max) {
    std::string s(below(max + 1), '\0');
    for (auto& c : s)
      c = static_cast<char>(below(256));
    return s;
  }

  std::string word() {
    static const char* words[] = {"workflow", "input", "version", "deadline", "idempotency_key",
                                  "quick",    "demo",  "",        "x",        "\xc3\xa9",
                                  "null",     "-1",    "1e999",   "\\u0000"};
    return words[below(sizeof(words) / sizeof(*words))];
  }

  json::value value(int depth) {
    switch (below(depth > 4 ? 6 : 8)) {
      case 0:
        return nullptr;
      case 1:
        return below(2) == 0;
      case 2:
        return static_cast<int64_t>(rng());
      case 3:
        return std::uniform_real_distribution<double>(-1e9, 1e9)(rng);
      case 4:
        return json::string(word());
      case 5:
        return json::string(bytes(8));
      case 6: {
        json::array a;
        for (size_t i = below(4); i > 0; --i)
          a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json::object o;
        for (size_t i = below(5); i > 0; --i)
          o[word()] = value(depth + 1);
        return o;
      }
    }
  }

  // A valid start request with one field dropped, retyped or added.
  std::string mutated_start() {
    json::object o{{"workflow", "quick"}, {"input", json::object{}}};
    switch (below(4)) {
      case 0:
        o.erase(below(2) == 0 ? "workflow" : "input");
        break;
      case 1:
        o[below(2) == 0 ? "workflow" : "input"] = value(3);
        break;
      case 2:
        o[word() + "_extra"] = value(3);
        break;
      default:
        o["version"] = value(3);
        break;
    }
    return json::serialize(o);
  }

  std::string body() {
    switch (below(4)) {
      case 0:
        return bytes(64);
      case 1:
        return json::serialize(value(0));
      case 2:
        return mutated_start();
      default: {
        auto s = mutated_start();
        s.resize(below(s.size() + 1));
        return s;
      }
    }
  }

  std::string query() {
    static const char* keys[] = {"limit",  "after",    "wait",    "state",
                                 "cursor", "workflow", "version", "zz"};
    std::string q;
    for (size_t i = below(3); i > 0; --i) {
      q += q.empty() ? "?" : "&";
      q += keys[below(8)];
      q += "=";
      for (auto c : bytes(6)) {
        char hex[4];
        std::snprintf(hex, sizeof(hex), "%%%02X", static_cast<unsigned char>(c));
        q += hex;
      }
    }
    return q;
  }
};

} // namespace

TEST_CASE("random requests at every route are answered 4xx and change nothing", "[http][fuzz]") {
  http_fixture fx;
  const uint64_t seed = 20261122;
  INFO("seed " << seed);
  fuzzer f{seed};
  auto sleepy = fx.start_op("sleepy");
  size_t created = 1;
  auto c = fx.client();
  std::vector<std::string> targets;
  for (auto& r : fx.srv->routes().routes()) {
    auto t = r.pattern;
    if (auto p = t.find("{id}"); p != std::string::npos)
      t.replace(p, 4, f.below(2) == 0 ? sleepy : "op-missing");
    if (auto p = t.find("{name}"); p != std::string::npos)
      t.replace(p, 6, "demo");
    targets.push_back(t);
  }
  targets.push_back("/api/v1/nothing");
  for (int round = 0; round < 400; ++round) {
    auto target = targets[f.below(targets.size())];
    if (target == "/api/v1/events/stream")
      continue;
    auto body = f.body();
    auto q = f.query();
    reply r;
    switch (f.below(4)) {
      case 0:
        r = to_reply(c->Get(target + q));
        break;
      case 1:
        r = to_reply(c->Put(target, body, "application/json"));
        break;
      default:
        r = to_reply(c->Post(target + q, body, "application/json"));
        break;
    }
    INFO("round " << round << ": " << target << q << " body " << json::serialize(json::string(body))
                  << " -> " << r.status << " " << r.body.substr(0, 200));
    REQUIRE(r.status != 0);
    CHECK(r.status < 500);
    // The root and /ui redirect to the console.
    if (r.status == 302) {
      CHECK((target == "/" || target == "/ui"));
      continue;
    }
    if (r.status / 100 == 2) {
      // Only a request that is valid may succeed: re-check it ourselves.
      if (r.status == 201) {
        json::value v;
        start_request sr;
        CHECK_FALSE(http::parse_json(body, 32, v));
        CHECK_FALSE(http::decode_start(v, sr));
        ++created;
      }
    } else {
      CHECK(r.status / 100 == 4);
      CHECK_FALSE(r.error_code().empty());
    }
  }
  // Garbage straight onto the socket: an answer or a closed connection.
  for (int round = 0; round < 30; ++round) {
    auto raw = raw_exchange(fx.port(), f.bytes(200) + "\r\n\r\n", std::chrono::milliseconds(500));
    auto status = raw_status(raw);
    CHECK((status == 0 || status / 100 == 4));
  }
  // Still up, and exactly the accepted operations exist.
  CHECK(fx.get("/healthz").status == 200);
  CHECK(fx.count_ops() == created);
  auto after = fx.start_op("quick");
  CHECK(fx.finish(after) == "succeeded");
  CHECK(fx.count_ops() == created + 1);
}
