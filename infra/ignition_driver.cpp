#include "infra/ignition_driver.hpp"

#include <algorithm>
#include <cctype>

#include "engine/errc.hpp"
#include "infra/ignition_json.hpp"

namespace stepwise::infra {

namespace json = boost::json;

namespace {

enum class ignition_call { create, remove, query, find };

const char* path_of(ignition_call c) {
  switch (c) {
    case ignition_call::create:
      return "create";
    case ignition_call::remove:
      return "delete";
    case ignition_call::query:
      return "query";
    case ignition_call::find:
      return "find";
  }
  return "";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// The driver's own words: its `localizedMessage`, else the start of its body.
std::string remote_message(const std::string& body) {
  json::error_code ec;
  auto v = json::parse(body, ec);
  if (!ec && v.is_object())
    if (auto m = v.get_object().if_contains("localizedMessage"); m != nullptr && m->is_string())
      return std::string(m->get_string());
  if (body.empty())
    return "no message";
  return body.size() <= 200 ? body : body.substr(0, 200) + "...";
}

// A 400 means what the call's documentation says it means; the message
// tells an unreachable location (and, on query, which id was unknown) apart.
error_kind kind_of_400(ignition_call c, const std::string& message) {
  auto m = lower(message);
  if (m.find("location") != std::string::npos)
    return error_kind::unreachable_location;
  switch (c) {
    case ignition_call::create:
    case ignition_call::find:
      return error_kind::invalid_template;
    case ignition_call::remove:
      return error_kind::not_found;
    case ignition_call::query:
      if (m.find("request") == std::string::npos && m.find("task") == std::string::npos
          && m.find("infrastructure") != std::string::npos)
        return error_kind::not_found;
      return error_kind::request_not_found;
  }
  return error_kind::infrastructure_error;
}

// Turns a call that did not succeed into the driver error it stands for.
error failure_of(ignition_call c, const std::string& origin, const net::http_result& r) {
  std::string what = std::string("driver ") + path_of(c);
  if (auto e = std::get_if<net::http_error>(&r))
    return {error_kind::temporary, what + ": no answer from " + origin + " ("
                                     + std::string{to_string(e->kind)} + ": " + e->message + ")"};
  auto& res = std::get<net::http_response>(r);
  auto msg = remote_message(res.body);
  auto text = what + " answered " + std::to_string(res.status) + ": " + msg;
  if (res.status == 400)
    return {kind_of_400(c, msg), text};
  if (res.status == 503)
    return {error_kind::temporary, text};
  return {error_kind::infrastructure_error, text};
}

// Decodes a successful answer with `decode`, or maps the failure.
template <class T, class Decoder>
result<T> answer(ignition_call c, const std::string& origin, const net::http_result& r,
                 Decoder decode) {
  auto res = std::get_if<net::http_response>(&r);
  if (res == nullptr || res->status < 200 || res->status >= 300)
    return failure_of(c, origin, r);
  auto invalid = [c](const std::string& why) {
    return error{error_kind::infrastructure_error,
                 std::string("driver ") + path_of(c) + " answered an invalid body: " + why};
  };
  json::error_code ec;
  auto v = json::parse(res->body, ec);
  if (ec)
    return invalid("not JSON (" + ec.message() + ")");
  T out{};
  if (auto err = decode(v, out))
    return invalid(*err);
  return out;
}

} // namespace

caf::expected<std::shared_ptr<ignition_driver>> ignition_driver::make(ignition_driver_config cfg) {
  auto bad = [] {
    return make_error(errc::invalid_argument,
                      "the driver URL must be http://HOST[:PORT][/PREFIX] or https://...");
  };
  const auto& url = cfg.base_url;
  size_t start = 0;
  if (url.rfind("http://", 0) == 0)
    start = 7;
  else if (url.rfind("https://", 0) == 0)
    start = 8;
  else
    return bad();
  auto slash = url.find('/', start);
  auto origin = url.substr(0, slash);
  auto prefix = slash == std::string::npos ? std::string() : url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/')
    prefix.pop_back();
  if (prefix.empty())
    prefix = "/api/infrastructure";
  if (origin.size() == start || url.find_first_of("@?# ", start) != std::string::npos)
    return bad();
  if (cfg.max_connections < 1)
    return make_error(errc::invalid_argument, "the driver's connection cap must be at least 1");
  return std::shared_ptr<ignition_driver>(
    new ignition_driver(cfg, std::move(origin), std::move(prefix)));
}

ignition_driver::ignition_driver(const ignition_driver_config& cfg, std::string origin,
                                 std::string prefix)
  : origin_(std::move(origin)), prefix_(std::move(prefix)), call_timeout_(cfg.call_timeout) {
  net::http_client_options opts;
  opts.thread_name = "sw-driver";
  opts.max_host_connections = cfg.max_connections;
  opts.max_total_connections = cfg.max_connections;
  opts.default_timeout = cfg.call_timeout;
  opts.connect_timeout = cfg.connect_timeout;
  opts.verify_tls = cfg.verify_tls;
  opts.ca_file = cfg.ca_file;
  client_ = std::make_shared<net::http_client>(std::move(opts));
}

void ignition_driver::post(const char* path, const json::object& body, net::http_callback done,
                           const stop_token& stop) {
  net::http_request req;
  req.method = net::http_method::post;
  req.url = origin_ + prefix_ + "/" + path;
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  req.body = json::serialize(body);
  req.timeout = call_timeout_;
  auto id = client_->send(std::move(req), std::move(done));
  // A caller that gives the call up ends its transfer: it holds no
  // connection, and the driver is not kept waiting for nobody.
  stop.on_stop([client = std::weak_ptr<net::http_client>{client_}, id] {
    if (auto c = client.lock())
      c->cancel(id);
  });
}

void ignition_driver::create(const create_request& req, callback<accepted> done,
                             const stop_token& stop) {
  post(
    "create", encode(req),
    [origin = origin_, done = std::move(done)](net::http_result r) {
      done(answer<accepted>(ignition_call::create, origin, r, decode_accepted));
    },
    stop);
}

void ignition_driver::remove(const std::string& infrastructure_id, const deployment_location& loc,
                             callback<accepted> done, const stop_token& stop) {
  post(
    "delete", encode(delete_request{infrastructure_id, loc}),
    [origin = origin_, done = std::move(done)](net::http_result r) {
      done(answer<accepted>(ignition_call::remove, origin, r, decode_accepted));
    },
    stop);
}

void ignition_driver::get_task(const std::string& infrastructure_id, const std::string& request_id,
                               const deployment_location& loc, callback<task> done) {
  post(
    "query", encode(task_query{infrastructure_id, request_id, loc}),
    [origin = origin_, infrastructure_id, request_id, done = std::move(done)](net::http_result r) {
      auto got = answer<task>(ignition_call::query, origin, r, decode_task);
      // Drivers may leave out the ids the caller already knows.
      if (auto t = std::get_if<task>(&got)) {
        if (t->infrastructure_id.empty())
          t->infrastructure_id = infrastructure_id;
        if (t->request_id.empty())
          t->request_id = request_id;
      }
      done(std::move(got));
    });
}

void ignition_driver::find(const std::string& template_text, const std::string& template_type,
                           const std::string& instance_name, const deployment_location& loc,
                           callback<std::optional<found>> done) {
  post("find", encode(find_request{template_text, template_type, instance_name, loc}),
       [origin = origin_, done = std::move(done)](net::http_result r) {
         done(answer<std::optional<found>>(ignition_call::find, origin, r, decode_found));
       });
}

} // namespace stepwise::infra
