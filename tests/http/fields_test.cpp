// Header fields and query parameters as the router and routes read them.

#include <catch2/catch.hpp>

#include "http/query_params.hpp"
#include "http/server_response.hpp"

using namespace stepwise::http;

TEST_CASE("header names compare without case", "[http][headers]") {
  header_fields h;
  h.add("Content-Type", "application/json");
  h.add("X-Tag", "one");
  h.add("x-tag", "two");
  CHECK(h.has("content-type"));
  CHECK(h.get("CONTENT-TYPE") == "application/json");
  CHECK(h.get("X-TAG") == "one");
  CHECK(h.get("Absent").empty());
  h.set("X-Tag", "three");
  CHECK(h.get("x-tag") == "three");
  CHECK(h.size() == 2);
  h.erase("CONTENT-type");
  CHECK_FALSE(h.has("Content-Type"));
}

TEST_CASE("a header that would split the answer's head is not taken", "[http][headers]") {
  header_fields h;
  h.set("Location", "/a\r\nSet-Cookie: x");
  h.add("X\nY", "1");
  CHECK(h.empty());
}

TEST_CASE("answers list their headers in name order", "[http][headers]") {
  server_response res;
  res.headers.set("b", "2");
  res.headers.set("A", "1");
  res.set_content("{}", "application/json");
  std::vector<std::string> names;
  for (auto& [name, value] : res.headers)
    names.push_back(name);
  CHECK(names == std::vector<std::string>{"A", "b", "Content-Type"});
  CHECK(res.status == 200);
  CHECK_FALSE(res.close_connection);
}

TEST_CASE("query parameters keep their order and their repeats", "[http][query]") {
  query_params p{{"y", "2"}, {"x", "1"}, {"y", "3"}, {"flag", ""}};
  CHECK(p.get("y") == "2");
  CHECK(p.count("y") == 2);
  CHECK(p.has("flag"));
  CHECK(p.get("flag").empty());
  CHECK_FALSE(p.has("Y"));
  CHECK(p.get("absent").empty());
  std::vector<std::string> keys;
  for (auto& [key, value] : p)
    keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"y", "x", "y", "flag"});
}
