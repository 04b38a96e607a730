#include "tests/http/openapi_check.hpp"

#include <catch2/catch.hpp>

namespace stepwise::test {

namespace json = boost::json;

namespace {

std::string media_type(const std::string& content_type) {
  return content_type.substr(0, content_type.find(';'));
}

} // namespace

const json::object& validator::resolve(const json::object& s) const {
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

std::string validator::check(const json::value& v, const json::object& schema_in,
                             const std::string& at) const {
  auto& s = resolve(schema_in);
  if (auto all = s.if_contains("allOf")) {
    for (auto& sub : all->as_array())
      if (auto err = check(v, sub.as_object(), at); !err.empty())
        return err;
    return "";
  }
  if (v.is_null())
    return s.contains("nullable") && s.at("nullable").as_bool() ? ""
                                                                : at + ": null but not nullable";
  if (auto t = s.if_contains("type")) {
    auto type = std::string(t->as_string());
    bool ok = (type == "object" && v.is_object()) || (type == "array" && v.is_array())
              || (type == "string" && v.is_string())
              || (type == "integer" && (v.is_int64() || v.is_uint64()))
              || (type == "number" && v.is_number()) || (type == "boolean" && v.is_bool());
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
        if (auto err =
              check(v.as_array()[i], items->as_object(), at + "[" + std::to_string(i) + "]");
            !err.empty())
          return err;
  return "";
}

void check_documented(const validator& val, const json::value& doc, const std::string& path,
                      const std::string& method, const reply& r) {
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

std::string walk_target(const std::string& path, const walked_ops& ops, const std::string& name) {
  std::string target = path;
  auto sub = [&](const std::string& var, const std::string& value) {
    if (auto pos = target.find(var); pos != std::string::npos)
      target.replace(pos, var.size(), value);
  };
  bool schedule_path = path.rfind("/api/v1/schedules/", 0) == 0;
  sub("{id}", schedule_path ? (path == "/api/v1/schedules/{id}" ? "doc-crud" : "doc")
              : path.find("cancel") != std::string::npos  ? ops.sleepy
              : path.find("/skip") != std::string::npos   ? ops.skippable
              : path.find("signals") != std::string::npos ? ops.signaled
              : path.find("retry") != std::string::npos   ? ops.failed
              : path.find("pause") != std::string::npos || path.find("resume") != std::string::npos
                ? ops.pausable
                : ops.quick);
  sub("{name}", name);
  sub("{token}", path.find("/fail") != std::string::npos ? ops.failed_task : ops.completed_task);
  sub("{asset}", "app.js");
  return target;
}

std::string walk_target(const std::string& path, const walked_ops& ops, const std::string& name,
                        const std::string& method) {
  if (path == "/api/v1/workflows/{name}" && method != "get")
    return "/api/v1/workflows/doc-wf";
  return walk_target(path, ops, name);
}

std::string walk_skip_body(const walked_ops& ops) {
  return R"({"step":")" + ops.skip_step + R"(","reason":"walked"})";
}

std::string walk_put_body(const std::string& path, const std::string& workflow) {
  if (path == "/api/v1/workflows/{name}")
    return R"({"steps":[{"name":"charge","kind":"task","queue":"doc","timeout":"1m"},)"
           R"({"name":"nap","kind":"sleep","duration":"1s"}]})";
  return R"({"workflow":")" + workflow + R"(","input":{},"cron":"0 3 * * *"})";
}

} // namespace stepwise::test
