#include "http/router.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <optional>

namespace stepwise::http {

namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  if (!path.empty() && path[0] == '/')
    pos = 1;
  while (pos <= path.size()) {
    auto next = path.find('/', pos);
    if (next == std::string_view::npos)
      next = path.size();
    out.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

bool is_param(std::string_view seg) {
  return seg.size() > 2 && seg.front() == '{' && seg.back() == '}';
}

} // namespace

bool is_json_type(std::string_view ct) {
  auto semi = ct.find(';');
  auto base = ct.substr(0, semi);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back())))
    base.remove_suffix(1);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.front())))
    base.remove_prefix(1);
  std::string lower(base);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower == "application/json")
    return true;
  return lower.rfind("application/", 0) == 0 && lower.size() > 17
         && lower.compare(lower.size() - 5, 5, "+json") == 0;
}

router::router(limits lim, request_metrics* metrics) : limits_(lim), metrics_(metrics) {
  // nop
}

void router::record(const server_request& req, const server_response& res) const {
  if (metrics_ == nullptr)
    return;
  std::optional<double> secs;
  if (req.started)
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - *req.started).count();
  auto path = req.path.empty() ? path_of_target(req.target) : req.path;
  metrics_->record(req.method, label(path), res.status, secs);
}

void router::add(std::string method, std::string pattern, handler fn, bool never_blocks) {
  route r;
  r.never_blocks = never_blocks;
  for (auto seg : split_path(pattern))
    r.segments.emplace_back(seg);
  r.json_body = method == "POST" || method == "PUT" || method == "PATCH";
  r.method = std::move(method);
  r.pattern = std::move(pattern);
  r.fn = std::move(fn);
  routes_.push_back(std::move(r));
}

bool router::never_blocks(std::string_view method, std::string_view path) const {
  auto m = find(method, path);
  return m.hit != nullptr && m.hit->never_blocks;
}

void router::add_guard(guard g) {
  guards_.push_back(std::move(g));
}

void router::set_error_writer(std::string prefix, error_writer w) {
  writers_.emplace_back(std::move(prefix), std::move(w));
}

bool router::matches(const route& r, const std::vector<std::string_view>& segs,
                     std::vector<std::string>* params) {
  if (r.segments.size() != segs.size())
    return false;
  for (size_t i = 0; i < segs.size(); ++i) {
    if (!is_param(r.segments[i])) {
      if (r.segments[i] != segs[i])
        return false;
    } else if (segs[i].empty()) {
      return false;
    } else if (params != nullptr) {
      params->emplace_back(segs[i]);
    }
  }
  return true;
}

router::match router::find(std::string_view method, std::string_view path) const {
  match result;
  auto segs = split_path(path);
  auto add_allow = [&](std::string_view m) {
    if (result.allow.find(m) != std::string::npos)
      return;
    if (!result.allow.empty())
      result.allow += ", ";
    result.allow += m;
  };
  for (auto& r : routes_) {
    if (!matches(r, segs, nullptr))
      continue;
    bool same = r.method == method || (r.method == "GET" && method == "HEAD");
    if (same && result.hit == nullptr) {
      result.hit = &r;
      matches(r, segs, &result.params);
    }
    add_allow(r.method);
    if (r.method == "GET")
      add_allow("HEAD");
  }
  return result;
}

std::string_view router::label(std::string_view path) const {
  auto segs = split_path(path);
  for (auto& r : routes_)
    if (matches(r, segs, nullptr))
      return r.pattern;
  return "unmatched";
}

void router::write(std::string_view path, server_response& res, const api_error& e) const {
  const error_writer* best = nullptr;
  size_t best_len = 0;
  for (auto& [prefix, w] : writers_)
    if (path.substr(0, prefix.size()) == prefix && prefix.size() >= best_len) {
      best = &w;
      best_len = prefix.size();
    }
  if (best != nullptr)
    (*best)(res, e);
  else
    write_error(res, e);
}

std::shared_ptr<stream_source> router::serve(const server_request& req,
                                             server_response& res) const {
  auto later = dispatch(req, res);
  // A long poll's status is known when it ends: the server records it then.
  if (later && !later->streaming())
    return later;
  record(req, res);
  return later;
}

bool router::admit(const server_request& req, server_response& res, match& m) const {
  m = find(req.method, req.path);
  if (m.hit == nullptr) {
    reject(req.method, req.path, m, res);
    return false;
  }
  for (auto& g : guards_) {
    if (auto err = g(req, *m.hit, res)) {
      write(req.path, res, *err);
      return false;
    }
  }
  auto& type = req.headers.get("Content-Type");
  if (m.hit->json_body && req.headers.has("Content-Type") && !is_json_type(type)) {
    write(
      req.path, res,
      {415, "unsupported_media_type", "Content-Type must be application/json, not '" + type + "'"});
    return false;
  }
  return true;
}

std::shared_ptr<stream_source> router::dispatch(const server_request& req,
                                                server_response& res) const {
  try {
    match m;
    if (!admit(req, res, m))
      return nullptr;
    request rq{req, std::move(m.params), req.body, nullptr};
    m.hit->fn(rq, res);
    return std::move(rq.later);
  } catch (const std::exception& e) {
    write(req.path, res, internal_error(e.what()));
  } catch (...) {
    write(req.path, res, internal_error("unknown exception"));
  }
  return nullptr;
}

void router::reject(const std::string& method, const std::string& path, const match& m,
                    server_response& res) const {
  if (m.allow.empty()) {
    write(path, res, not_found("no route for " + path));
    return;
  }
  res.headers.set("Allow", m.allow);
  write(path, res,
        {405, "method_not_allowed",
         method + " is not allowed on " + path + " (allowed: " + m.allow + ")"});
}

bool router::answer_error(const server_request& req, server_response& res) const {
  if (!res.body.empty())
    return false;
  std::string message;
  switch (res.status) {
    case 400:
      message = "malformed HTTP request";
      break;
    case 413:
      message = "request body exceeds " + std::to_string(limits_.max_body_bytes) + " bytes";
      break;
    case 414:
      message = "request URI too long";
      break;
    case 431:
      message = "request headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes";
      break;
    default:
      message = "request failed";
      break;
  }
  auto path = req.path.empty() ? path_of_target(req.target) : req.path;
  write(path, res, {res.status, code_for_status(res.status), message});
  // What follows a request that could not be parsed or read whole starts at
  // an unknown place.
  if (res.status == 400 || res.status == 414 || res.status == 431)
    res.close_connection = true;
  record(req, res);
  return true;
}

} // namespace stepwise::http
