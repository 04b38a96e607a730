#include "http/infra_client_driver.hpp"

#include <algorithm>
#include <cctype>

#include "engine/errc.hpp"
#include "http/infra_json.hpp"

namespace stepwise::http {

namespace json = boost::json;

namespace {

enum class call { create, remove, query, find };

const char* path_of(call c) {
  switch (c) {
    case call::create: return "create";
    case call::remove: return "delete";
    case call::query: return "query";
    case call::find: return "find";
  }
  return "";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// The driver's own words: its `localizedMessage`, else the start of its body.
std::string remote_message(const std::string& body) {
  json::error_code ec;
  auto v = json::parse(body, ec);
  if (!ec && v.is_object())
    if (auto m = v.get_object().if_contains("localizedMessage");
        m != nullptr && m->is_string())
      return std::string(m->get_string());
  if (body.empty())
    return "no message";
  return body.size() <= 200 ? body : body.substr(0, 200) + "...";
}

// A 400 means what the call's documentation says it means; the message
// tells an unreachable location (and, on query, which id was unknown) apart.
infra::error_kind kind_of_400(call c, const std::string& message) {
  auto m = lower(message);
  if (m.find("location") != std::string::npos)
    return infra::error_kind::unreachable_location;
  switch (c) {
    case call::create:
    case call::find:
      return infra::error_kind::invalid_template;
    case call::remove:
      return infra::error_kind::not_found;
    case call::query:
      if (m.find("request") == std::string::npos
          && m.find("task") == std::string::npos
          && m.find("infrastructure") != std::string::npos)
        return infra::error_kind::not_found;
      return infra::error_kind::request_not_found;
  }
  return infra::error_kind::infrastructure_error;
}

bool success(int status) {
  return status >= 200 && status < 300;
}

} // namespace

caf::expected<std::shared_ptr<client_driver>>
client_driver::make(client_driver_config cfg) {
  // The URL is not quoted back: it may carry credentials.
  auto bad = [] {
    return make_error(errc::invalid_argument,
                      "the driver URL must be http://HOST[:PORT][/PREFIX] or "
                      "https://...");
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
  if (origin.size() == start
      || url.find_first_of("@?# ", start) != std::string::npos)
    return bad();
  auto d = std::shared_ptr<client_driver>(
    new client_driver(std::move(cfg), std::move(origin), std::move(prefix)));
  if (!d->acquire()->is_valid())
    return bad();
  return d;
}

client_driver::client_driver(client_driver_config cfg, std::string origin,
                             std::string prefix)
  : cfg_(std::move(cfg)), origin_(std::move(origin)), prefix_(std::move(prefix)) {
  // nop
}

std::unique_ptr<httplib::Client> client_driver::acquire() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  auto c = std::make_unique<httplib::Client>(origin_);
  c->set_connection_timeout(cfg_.connect_timeout);
  c->set_read_timeout(cfg_.read_timeout);
  c->set_write_timeout(cfg_.read_timeout);
  c->set_keep_alive(true);
  // Small request/answer exchanges: Nagle would add tens of milliseconds.
  c->set_tcp_nodelay(true);
  return c;
}

void client_driver::release(std::unique_ptr<httplib::Client> c) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (idle_.size() < cfg_.max_idle)
    idle_.push_back(std::move(c));
}

client_driver::exchange client_driver::post(const std::string& op,
                                            const json::object& body) {
  exchange x;
  auto c = acquire();
  auto res = c->Post(prefix_ + "/" + op, json::serialize(body),
                     "application/json");
  if (!res) {
    // The connection's state is unknown: drop this client.
    x.failure = httplib::to_string(res.error());
    return x;
  }
  x.status = res->status;
  x.body = std::move(res->body);
  release(std::move(c));
  return x;
}

namespace {

// Turns a call that did not succeed into the driver error it stands for.
infra::error failure_of(call c, const std::string& origin,
                        const client_driver::exchange& x) {
  std::string what = std::string("driver ") + path_of(c);
  if (x.status == 0)
    return {infra::error_kind::temporary,
            what + ": no answer from " + origin + " (" + x.failure + ")"};
  auto msg = remote_message(x.body);
  auto text = what + " answered " + std::to_string(x.status) + ": " + msg;
  if (x.status == 400)
    return {kind_of_400(c, msg), text};
  if (x.status == 503)
    return {infra::error_kind::temporary, text};
  return {infra::error_kind::infrastructure_error, text};
}

infra::error invalid_answer(call c, const std::string& why) {
  return {infra::error_kind::infrastructure_error,
          std::string("driver ") + path_of(c) + " answered an invalid body: "
            + why};
}

// Decodes a successful answer with `decode`, or maps the failure.
template <class T, class Decoder>
infra::result<T> answer(call c, const std::string& origin,
                        const client_driver::exchange& x, Decoder decode) {
  if (!success(x.status))
    return failure_of(c, origin, x);
  json::error_code ec;
  auto v = json::parse(x.body, ec);
  if (ec)
    return invalid_answer(c, "not JSON (" + ec.message() + ")");
  T out{};
  if (auto err = decode(v, out))
    return invalid_answer(c, *err);
  return out;
}

} // namespace

infra::result<infra::accepted>
client_driver::create(const infra::create_request& req) {
  return answer<infra::accepted>(call::create, origin_,
                                 post("create", encode(req)), decode_accepted);
}

infra::result<infra::accepted>
client_driver::remove(const std::string& infrastructure_id,
                      const infra::deployment_location& loc) {
  return answer<infra::accepted>(call::remove, origin_,
                                 post("delete",
                                      encode(delete_request{infrastructure_id,
                                                            loc})),
                                 decode_accepted);
}

infra::result<infra::task>
client_driver::get_task(const std::string& infrastructure_id,
                        const std::string& request_id,
                        const infra::deployment_location& loc) {
  auto got = answer<infra::task>(
    call::query, origin_,
    post("query", encode(task_query{infrastructure_id, request_id, loc})),
    decode_task);
  // Drivers may leave out the ids the caller already knows.
  if (auto t = std::get_if<infra::task>(&got)) {
    if (t->infrastructure_id.empty())
      t->infrastructure_id = infrastructure_id;
    if (t->request_id.empty())
      t->request_id = request_id;
  }
  return got;
}

infra::result<std::optional<infra::found>>
client_driver::find(const std::string& template_text,
                    const std::string& template_type,
                    const std::string& instance_name,
                    const infra::deployment_location& loc) {
  find_request req{template_text, template_type, instance_name, loc};
  return answer<std::optional<infra::found>>(call::find, origin_,
                                             post("find", encode(req)),
                                             decode_found);
}

} // namespace stepwise::http
