// How a request target decodes: its path and query, and the targets that
// are refused.

#include <catch2/catch.hpp>

#include "http/request_target.hpp"

using namespace stepwise::http;

namespace {

struct target_parts {
  int status = 0;
  std::string path;
  query_params params;
};

target_parts decode_parts(std::string_view target) {
  target_parts d;
  d.status = decode_target(target, d.path, d.params);
  return d;
}

std::vector<query_params::value_type> param_list(const query_params& p) {
  return {p.begin(), p.end()};
}

} // namespace

TEST_CASE("a target's path and query are percent-decoded", "[http][target]") {
  auto d = decode_parts("/api/v1/workflows/a%20b%2Fc+d?x=1&y=a+b&y=%2B&z=%C3%A9");
  REQUIRE(d.status == 0);
  // `%2F` is a slash of the path; `+` is a space only in the query.
  CHECK(d.path == "/api/v1/workflows/a b/c+d");
  using kv = query_params::value_type;
  CHECK(param_list(d.params)
        == std::vector<kv>{{"x", "1"}, {"y", "a b"}, {"y", "+"}, {"z", "\xc3\xa9"}});
}

TEST_CASE("a query keeps what it gives and drops only empty pieces", "[http][target]") {
  using kv = query_params::value_type;
  CHECK(decode_parts("/a?").params.empty());
  CHECK(param_list(decode_parts("/a?&&b=2&").params) == std::vector<kv>{{"b", "2"}});
  // A key without `=` is given, with an empty value.
  auto flag = decode_parts("/a?k");
  CHECK(flag.params.has("k"));
  CHECK(flag.params.get("k").empty());
  // Repeated pairs stay repeated, for the readers that refuse them.
  CHECK(decode_parts("/a?x=1&x=1").params.count("x") == 2);
  // An empty name is a parameter too (and unknown to every route).
  CHECK(param_list(decode_parts("/a?=v").params) == std::vector<kv>{{"", "v"}});
  // `=` and `?` inside a value belong to it.
  CHECK(param_list(decode_parts("/a?next=/b?c=d").params) == std::vector<kv>{{"next", "/b?c=d"}});
  CHECK(param_list(decode_parts("/a?k=b=c").params) == std::vector<kv>{{"k", "b=c"}});
}

TEST_CASE("a fragment is dropped", "[http][target]") {
  auto d = decode_parts("/a?x=1#frag");
  REQUIRE(d.status == 0);
  CHECK(d.path == "/a");
  CHECK(d.params.get("x") == "1");
}

TEST_CASE("targets that are not origin form are 400, long ones 414", "[http][target]") {
  for (auto target : {"/a%zz", "/a%2", "/a?x=%zz", "/a?x=%u00e9", "*", "http://host/a", "a",
                      "/caf\xc3\xa9", "/a{b}", "/a|b", "/a?x=[1]", "/a\"b"}) {
    INFO(target);
    CHECK(decode_parts(target).status == 400);
  }
  std::string longest = "/" + std::string(max_target_bytes - 1, 'a');
  CHECK(decode_parts(longest).status == 0);
  CHECK(decode_parts(longest + "a").status == 414);
}

TEST_CASE("a refused target still gets a path for its error's format", "[http][target]") {
  CHECK(path_of_target("/a%20b?x=1") == "/a b");
  CHECK(path_of_target("/a%zz") == "/a%zz");
  CHECK(path_of_target("/a%2") == "/a%2");
}
