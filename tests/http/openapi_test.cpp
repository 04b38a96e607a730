#include <future>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "http/openapi.hpp"
#include "tests/http/fake_driver.hpp"
#include "tests/http/fixture.hpp"
#include "tests/http/osb_support.hpp"

using namespace stepwise;
using namespace stepwise::test;
namespace json = boost::json;

namespace {

// A small validator for the subset of JSON Schema our document uses: $ref,
// allOf, type, nullable, required, properties, items, enum and
// additionalProperties false. Returns "" or the first mismatch.
class validator {
public:
  explicit validator(const json::value& doc) : doc_(doc) {
    // nop
  }

  const json::object& resolve(const json::object& s) const {
    auto ref = s.if_contains("$ref");
    if (ref == nullptr)
      return s;
    std::string p(ref->as_string());
    REQUIRE(p.rfind("#/", 0) == 0);
    const json::value* cur = &doc_;
    size_t pos = 2;
    while (pos <= p.size()) {
      auto next = p.find('/', pos);
      if (next == std::string::npos)
        next = p.size();
      cur = &cur->at(p.substr(pos, next - pos));
      pos = next + 1;
    }
    return resolve(cur->as_object());
  }

  std::string check(const json::value& v, const json::object& schema_in,
                    const std::string& at) const {
    auto& s = resolve(schema_in);
    if (auto all = s.if_contains("allOf")) {
      for (auto& sub : all->as_array())
        if (auto err = check(v, sub.as_object(), at); !err.empty())
          return err;
      return "";
    }
    if (v.is_null())
      return s.contains("nullable") && s.at("nullable").as_bool()
               ? ""
               : at + ": null but not nullable";
    if (auto t = s.if_contains("type")) {
      auto type = std::string(t->as_string());
      bool ok = (type == "object" && v.is_object())
                || (type == "array" && v.is_array())
                || (type == "string" && v.is_string())
                || (type == "integer" && (v.is_int64() || v.is_uint64()))
                || (type == "number" && v.is_number())
                || (type == "boolean" && v.is_bool());
      if (!ok)
        return at + ": not of type " + type + ": " + json::serialize(v);
    }
    if (auto e = s.if_contains("enum")) {
      bool found = false;
      for (auto& x : e->as_array())
        found = found || x == v;
      if (!found)
        return at + ": not in enum: " + json::serialize(v);
    }
    if (v.is_object()) {
      auto& o = v.as_object();
      if (auto req = s.if_contains("required"))
        for (auto& k : req->as_array())
          if (!o.contains(k.as_string()))
            return at + ": missing required field " + std::string(k.as_string());
      auto props = s.if_contains("properties");
      for (auto& kv : o) {
        auto p = props != nullptr ? props->as_object().if_contains(kv.key()) : nullptr;
        if (p != nullptr) {
          if (auto err = check(kv.value(), p->as_object(), at + "." + std::string(kv.key()));
              !err.empty())
            return err;
        } else if (auto ap = s.if_contains("additionalProperties");
                   ap != nullptr && ap->is_bool() && !ap->as_bool()) {
          return at + ": undocumented field " + std::string(kv.key());
        }
      }
    }
    if (v.is_array())
      if (auto items = s.if_contains("items"))
        for (size_t i = 0; i < v.as_array().size(); ++i)
          if (auto err = check(v.as_array()[i], items->as_object(),
                               at + "[" + std::to_string(i) + "]");
              !err.empty())
            return err;
    return "";
  }

private:
  const json::value& doc_;
};

std::string media_type(const std::string& content_type) {
  return content_type.substr(0, content_type.find(';'));
}

// Checks `r` against the documented responses of `method` on `path`.
void check_documented(const validator& val, const json::value& doc,
                      const std::string& path, const std::string& method,
                      const reply& r) {
  INFO(method << " " << path << " -> " << r.status << " " << r.body.substr(0, 300));
  auto& responses = doc.at("paths").at(path).at(method).at("responses").as_object();
  auto documented = responses.if_contains(std::to_string(r.status));
  REQUIRE(documented != nullptr);
  auto& resp = val.resolve(documented->as_object());
  auto content = resp.if_contains("content");
  if (content == nullptr)
    return;
  auto type = media_type(r.header("Content-Type"));
  auto media = content->as_object().if_contains(type);
  REQUIRE(media != nullptr);
  if (type == "application/json") {
    auto err = val.check(r.json, media->at("schema").as_object(), "body");
    CHECK(err == "");
  }
}

} // namespace

TEST_CASE("the OpenAPI document is served and lists exactly our routes",
          "[http][openapi]") {
  // With a driver and the service broker, so that every API is mounted.
  temp_dir creds;
  http_fixture fx{http_fixture::default_config(), std::make_shared<fake_driver>(),
                  broker_mount(creds.path)};
  auto r = fx.get("/api/v1/openapi.json");
  REQUIRE(r.status == 200);
  CHECK(r.json == http::openapi_document());
  CHECK(std::string(r.json.at("openapi").as_string()).rfind("3.", 0) == 0);
  std::set<std::pair<std::string, std::string>> documented;
  for (auto& p : r.json.at("paths").as_object())
    for (auto& m : p.value().as_object())
      documented.emplace(std::string(m.key()), std::string(p.key()));
  std::set<std::pair<std::string, std::string>> served;
  for (auto& route : fx.srv->routes().routes()) {
    std::string m = route.method;
    for (auto& c : m)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    served.emplace(m, route.pattern);
  }
  CHECK(documented == served);
}

TEST_CASE("every documented route answers as documented", "[http][openapi]") {
  auto drv = std::make_shared<fake_driver>();
  infra::task failed{"i1", "r1", infra::task_status::failed,
                     infra::failure_details{infra::failure_code::infrastructure_error, "x"},
                     {}};
  drv->set_task(failed);
  drv->set_found(infra::found{"i1", {{"ip", "10.0.0.1"}}});
  http_fixture fx{http_fixture::default_config(), drv};
  auto& doc = http::openapi_document();
  validator val{doc};
  auto quick = fx.start_op("quick");
  REQUIRE(fx.finish(quick) == "succeeded");
  auto sleepy = fx.start_op("sleepy");
  flip_allowed = false;
  auto flip = fx.start_op("flip");
  REQUIRE(fx.finish(flip) == "failed");
  auto c = fx.client();
  for (auto& p : doc.at("paths").as_object()) {
    std::string path(p.key());
    for (auto& m : p.value().as_object()) {
      std::string method(m.key());
      std::string target = path;
      auto sub = [&](const std::string& var, const std::string& value) {
        auto pos = target.find(var);
        if (pos != std::string::npos)
          target.replace(pos, var.size(), value);
      };
      sub("{id}", path.find("cancel") != std::string::npos ? sleepy
                  : path.find("retry") != std::string::npos ? flip
                                                           : quick);
      sub("{name}", "demo");
      sub("{asset}", "app.js");
      // The service broker's answers are checked by its own tests.
      if (path.rfind("/v2/", 0) == 0)
        continue;
      reply r;
      if (path == "/api/v1/events/stream") {
        // Read the head of the endless stream, then hang up.
        httplib::Headers hs;
        std::string ct;
        int status = 0;
        c->Get(target, hs,
               [&](const httplib::Response& res) {
                 status = res.status;
                 ct = res.get_header_value("Content-Type");
                 return true;
               },
               [&](const char*, size_t) { return false; });
        r.status = status;
        r.headers.emplace("Content-Type", ct);
      } else if (path == "/readyz") {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while ((r = fx.get(target)).status != 200
               && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      } else if (method == "get") {
        r = to_reply(c->Get(target));
      } else {
        std::string loc = R"("deploymentLocation":{"name":"l","properties":{}})";
        std::string body
          = path == "/api/v1/operations" ? R"({"workflow":"quick","input":{"x":1}})"
            : path == "/api/infrastructure/create"
              ? "{" + loc + R"(,"template":"t","templateType":"TOSCA"})"
            : path == "/api/infrastructure/delete"
              ? R"({"infrastructureId":"i1",)" + loc + "}"
            : path == "/api/infrastructure/query"
              ? R"({"infrastructureId":"i1","requestId":"r1",)" + loc + "}"
            : path == "/api/infrastructure/find"
              ? R"({"instanceName":"n","template":"t","templateType":"T",)" + loc + "}"
              : "";
        r = to_reply(c->Post(target, body, "application/json"));
      }
      CHECK((r.status / 100 == 2 || r.status == 302));
      check_documented(val, doc, path, method, r);
    }
  }
}

TEST_CASE("documented error answers match the Error schema", "[http][openapi]") {
  auto drv = std::make_shared<fake_driver>();
  http_fixture fx{http_fixture::default_config(), drv};
  auto& doc = http::openapi_document();
  validator val{doc};
  auto ops = std::string("/api/v1/operations");
  auto sleepy = fx.start_op("sleepy");
  REQUIRE(fx.await_event(sleepy, "operation_waiting"));
  REQUIRE(fx.post(ops + "/" + sleepy + "/cancel", "").status == 202);
  REQUIRE(fx.await_event(sleepy, "operation_canceled"));
  auto c = fx.client();
  check_documented(val, doc, ops, "post", fx.post(ops, "{"));
  check_documented(val, doc, ops, "post", fx.post(ops, "{}", "text/plain"));
  check_documented(val, doc, ops, "post",
                   fx.post(ops, std::string(2 << 20, ' ')));
  check_documented(val, doc, ops, "post", to_reply(c->Delete(ops)));
  check_documented(val, doc, ops, "get", fx.get(ops + "?limit=x"));
  check_documented(val, doc, ops + "/{id}", "get", fx.get(ops + "/missing"));
  check_documented(val, doc, ops + "/{id}/cancel", "post",
                   fx.post(ops + "/" + sleepy + "/cancel", ""));
  check_documented(val, doc, ops + "/{id}/retry", "post",
                   fx.post(ops + "/" + sleepy + "/retry", ""));
  check_documented(val, doc, "/api/v1/workflows/{name}", "get",
                   fx.get("/api/v1/workflows/none"));
  check_documented(val, doc, "/api/v1/events", "get",
                   fx.get("/api/v1/events?wait=100"));
  auto create = std::string("/api/infrastructure/create");
  auto good = R"({"deploymentLocation":{"name":"l"},"template":"t","templateType":"T"})";
  check_documented(val, doc, create, "post", fx.post(create, "{"));
  check_documented(val, doc, create, "post", fx.post(create, good, "text/plain"));
  check_documented(val, doc, create, "post", fx.post(create, std::string(2 << 20, ' ')));
  check_documented(val, doc, create, "post", to_reply(c->Get(create)));
  drv->fail_with(infra::error{infra::error_kind::temporary, "busy"});
  check_documented(val, doc, create, "post", fx.post(create, good));
  drv->fail_with(infra::error{infra::error_kind::infrastructure_error, "broken"});
  check_documented(val, doc, create, "post", fx.post(create, good));
}
