#include "http/auth.hpp"

#include "engine/errc.hpp"

namespace stepwise::http {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i]))
        != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

api_error unauthorized(std::string message) {
  return {401, "unauthorized", std::move(message)};
}

} // namespace

access access_for(std::string_view method, std::string_view pattern, bool metrics_auth) {
  if (pattern == "/healthz" || pattern == "/readyz")
    return access::open;
  if (pattern == "/metrics")
    return metrics_auth ? access::read : access::open;
  // The console's files hold no data; the console asks for a token before
  // it calls the API.
  if (pattern == "/" || pattern == "/ui" || starts_with(pattern, "/ui/"))
    return access::open;
  if (pattern == "/v2" || starts_with(pattern, "/v2/"))
    return access::broker;
  if (method == "POST" && starts_with(pattern, "/api/v1/tasks/"))
    return access::worker;
  return method == "GET" || method == "HEAD" ? access::read : access::write;
}

std::string_view bearer_token(std::string_view authorization) {
  auto space = authorization.find(' ');
  if (space == std::string_view::npos || !iequals(authorization.substr(0, space), "Bearer"))
    return {};
  auto token = authorization.substr(space + 1);
  while (!token.empty() && token.front() == ' ')
    token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ')
    token.remove_suffix(1);
  return token;
}

caf::expected<std::shared_ptr<authenticator>> authenticator::open(const std::string& path) {
  return first_loaded(std::shared_ptr<authenticator>{new authenticator(path)});
}

caf::expected<size_t> authenticator::reload() {
  auto set = token_set::load(path_);
  if (!set)
    return set.error();
  if (set->size() == 0)
    return make_error(errc::invalid_argument,
                      path_ + " has no token (lines 'read|write|worker NAME TOKEN')");
  auto n = set->size();
  auto fresh = std::make_shared<const token_set>(std::move(*set));
  std::lock_guard<std::mutex> guard{mtx_};
  tokens_ = std::move(fresh);
  return n;
}

std::shared_ptr<const token_set> authenticator::tokens() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return tokens_;
}

std::string authenticator::name_of(std::string_view authorization) const {
  auto token = bearer_token(authorization);
  if (token.empty())
    return {};
  auto set = tokens();
  auto hit = set ? set->match(token) : nullptr;
  return hit != nullptr ? hit->name : std::string{};
}

std::string caller_name(const authenticator* auth, std::string_view authorization) {
  auto name = auth != nullptr ? auth->name_of(authorization) : std::string{};
  return name.empty() ? "anonymous" : name;
}

std::optional<api_error> authenticator::check(access need, std::string_view authorization) const {
  if (need == access::open || need == access::broker)
    return std::nullopt;
  if (authorization.empty())
    return unauthorized("this route needs a bearer token (Authorization: Bearer TOKEN)");
  auto token = bearer_token(authorization);
  if (token.empty())
    return unauthorized("the Authorization header must be 'Bearer TOKEN'");
  auto set = tokens();
  auto hit = set ? set->match(token) : nullptr;
  if (hit == nullptr)
    return unauthorized("the bearer token is not valid");
  if (hit->what == role::write)
    return std::nullopt;
  if (hit->what == role::worker && need != access::worker)
    return api_error{403, "forbidden",
                     "the token of " + hit->name
                       + " is a worker's: it may only poll and answer tasks (/api/v1/tasks/)"};
  if (hit->what == role::read && need == access::worker)
    return api_error{403, "forbidden",
                     "the token of " + hit->name
                       + " may only read; this route needs a worker or write token"};
  if (hit->what == role::read && need == access::write)
    return api_error{403, "forbidden",
                     "the token of " + hit->name
                       + " may only read; this route needs a write token"};
  return std::nullopt;
}

} // namespace stepwise::http
