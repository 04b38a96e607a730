// Finding operations: labels on start, the list's label, time
// and key filters, an operation's events a page at a time, the event
// stream of one operation.

#include <catch2/catch.hpp>

#include "engine/time.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

std::vector<std::string> ids_in(const reply& r) {
  std::vector<std::string> out;
  for (auto& op : r.json.at("items").as_array())
    out.emplace_back(op.at("id").as_string());
  return out;
}

std::string start_labeled(const http_fixture& fx, const std::string& labels,
                          const std::string& extra = "") {
  auto r = fx.post(ops, R"({"workflow":"quick","input":{},"labels":)" + labels + extra + "}");
  REQUIRE(r.status == 201);
  return std::string(r.json.at("id").as_string());
}

} // namespace

TEST_CASE("labels on start are shown with the operation, and checked", "[http][find]") {
  http_fixture fx;
  auto r = fx.post(ops, R"({"workflow":"quick","input":{"user":"ann"},"idempotency_key":"k-1",)"
                        R"("labels":{"runtime":"rt-1","user":"bob"}})");
  REQUIRE(r.status == 201);
  CHECK(r.json.at("idempotency_key") == "k-1");
  // The request's label wins over the one the workflow takes from the input.
  CHECK(r.json.at("labels") == boost::json::parse(R"({"runtime":"rt-1","user":"bob"})"));
  auto id = std::string(r.json.at("id").as_string());
  auto got = fx.get(std::string(ops) + "/" + id);
  CHECK(got.json.at("labels") == r.json.at("labels"));
  // From the input alone; none at all.
  auto in = fx.post(ops, R"({"workflow":"quick","input":{"user":"cy"}})");
  REQUIRE(in.status == 201);
  CHECK(in.json.at("labels") == boost::json::parse(R"({"user":"cy"})"));
  CHECK(in.json.at("idempotency_key").is_null());
  auto plain = fx.post(ops, R"({"workflow":"quick","input":{}})");
  CHECK(plain.json.at("labels").as_object().empty());
  std::string many = "{";
  for (int i = 0; i < 17; ++i)
    many += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":\"v\"";
  many += "}";
  for (auto [labels, names] :
       {std::pair{std::string(R"({"Runtime":"x"})"), "labels"},
        std::pair{std::string(R"({"":"x"})"), "labels"},
        std::pair{R"({")" + std::string(64, 'k') + R"(":"x"})", "labels"},
        std::pair{R"({"k":")" + std::string(257, 'v') + R"("})", "labels.k"},
        std::pair{std::string(R"({"k":1})"), "labels.k"}, std::pair{std::string(R"([])"), "labels"},
        std::pair{many, "labels"}}) {
    auto bad = fx.post(ops, R"({"workflow":"quick","input":{},"labels":)" + labels + "}");
    CHECK(bad.status == 400);
    CHECK(bad.error_code() == "invalid_argument");
    CHECK(bad.body.find(names) != std::string::npos);
  }
  // 16 labels and values of 256 bytes are fine.
  std::string sixteen = "{";
  for (int i = 0; i < 16; ++i)
    sixteen += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":\""
               + std::string(256, 'v') + "\"";
  sixteen += "}";
  CHECK(fx.post(ops, R"({"workflow":"quick","input":{},"labels":)" + sixteen + "}").status == 201);
}

TEST_CASE("GET /operations filters by labels, time and key, paged", "[http][find]") {
  http_fixture fx;
  auto a = start_labeled(fx, R"({"runtime":"rt-1","location":"dc1"})");
  auto b =
    start_labeled(fx, R"({"runtime":"rt-1","location":"dc2"})", R"(,"idempotency_key":"kb")");
  auto c = start_labeled(fx, R"({"runtime":"rt-2","location":"dc1"})");
  auto d = start_labeled(fx, R"({"runtime":"rt-1","location":"dc1"})");
  auto list = [&](const std::string& q) {
    auto r = fx.get(std::string(ops) + "?" + q);
    REQUIRE(r.status == 200);
    return ids_in(r);
  };
  using ids = std::vector<std::string>;
  CHECK(list("label=runtime=rt-1") == ids{d, b, a});
  CHECK(list("label=runtime=rt-1&label=location=dc1") == ids{d, a});
  CHECK(list("label=location%3Ddc1") == ids{d, c, a});
  CHECK(list("label=runtime=rt-3").empty());
  CHECK(list("idempotency_key=kb") == ids{b});
  CHECK(list("idempotency_key=kb&label=runtime=rt-2").empty());
  // Paged: one at a time, in order, nothing twice.
  ids seen;
  std::string cursor;
  for (int pages = 0; pages < 10; ++pages) {
    auto r = fx.get(std::string(ops) + "?label=runtime=rt-1&limit=1"
                    + (cursor.empty() ? "" : "&cursor=" + cursor));
    REQUIRE(r.status == 200);
    for (auto& id : ids_in(r))
      seen.push_back(id);
    if (r.json.at("next_cursor").is_null())
      break;
    cursor = std::string(r.json.at("next_cursor").as_string());
  }
  CHECK(seen == ids{d, b, a});
  // Creation times: strictly after b's, strictly before d's.
  auto created = [&](const std::string& id) {
    return std::string(fx.get(std::string(ops) + "/" + id).json.at("created_at").as_string());
  };
  // Shown to the millisecond, stored to the microsecond: a bound one
  // millisecond on excludes the operation shown at it.
  auto tb = created(b);
  auto td = created(d);
  auto ms_after = [](const std::string& t) {
    return format_time(*parse_time(t) + std::chrono::milliseconds(1));
  };
  if (tb != created(c) && created(c) != td)
    CHECK(list("created_after=" + ms_after(tb) + "&created_before=" + td) == ids{c});
  CHECK(list("created_after=" + ms_after(td)).empty());
  CHECK(list("created_before=" + tb + "&label=runtime=rt-1") == ids{a});
  for (auto q : {"label=runtime", "label=Runtime=x", "label==x", "created_after=yesterday",
                 "created_before=", "idempotency_key="}) {
    auto bad = fx.get(std::string(ops) + "?" + q);
    CHECK(bad.status == 400);
    CHECK(bad.error_code() == "invalid_argument");
  }
  // Other parameters still may not repeat.
  CHECK(fx.get(std::string(ops) + "?state=failed&state=failed").status == 400);
}

TEST_CASE("an operation's events come whole, a page at a time", "[http][find]") {
  http_fixture fx;
  auto id = fx.start_op("demo", R"({"name":"x"})");
  // Others in between.
  for (int i = 0; i < 5; ++i)
    fx.start_op("quick");
  // Its last event written: the log holds all of them.
  REQUIRE(fx.await_event(id, "operation_succeeded"));
  std::vector<int64_t> want;
  auto all = fx.get("/api/v1/events?after=0&limit=1000");
  REQUIRE(all.status == 200);
  for (auto& e : all.json.at("items").as_array())
    if (e.at("operation_id") == id.c_str())
      want.push_back(e.at("seq").as_int64());
  REQUIRE(want.size() > 3);
  std::vector<int64_t> got;
  int64_t after = 0;
  for (int pages = 0; pages < 100; ++pages) {
    auto r = fx.get(std::string(ops) + "/" + id + "/events?limit=2&after=" + std::to_string(after));
    REQUIRE(r.status == 200);
    CHECK(r.json.at("last_seq").as_int64() >= want.back());
    CHECK_FALSE(r.json.as_object().contains("complete"));
    for (auto& e : r.json.at("items").as_array())
      got.push_back(e.at("seq").as_int64());
    if (r.json.at("next_after").is_null())
      break;
    after = r.json.at("next_after").as_int64();
  }
  CHECK(got == want);
  auto whole = fx.get(std::string(ops) + "/" + id + "/events");
  CHECK(whole.json.at("items").as_array().size() == want.size());
  CHECK(whole.json.at("next_after").is_null());
  CHECK(fx.get(std::string(ops) + "/" + id + "/events?limit=0").status == 400);
  CHECK(fx.get(std::string(ops) + "/op-none/events").status == 404);
  // The log filtered to the operation.
  auto one = fx.get("/api/v1/events?after=0&limit=1000&operation=" + id);
  REQUIRE(one.status == 200);
  std::vector<int64_t> polled;
  for (auto& e : one.json.at("items").as_array())
    polled.push_back(e.at("seq").as_int64());
  CHECK(polled == want);
}
