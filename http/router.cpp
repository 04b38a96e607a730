#include "http/router.hpp"

#include "http/digest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

// Methods that httplib hands to our handlers; anything else reaches us only
// through the error handler.
bool routed_by_httplib(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "POST" || m == "PUT" || m == "DELETE" || m == "OPTIONS"
         || m == "PATCH";
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

std::string path_of_target(std::string_view target) {
  auto raw = target.substr(0, target.find('?'));
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      auto hi = hex_digit(raw[i + 1]);
      auto lo = hex_digit(raw[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(raw[i]);
  }
  return out;
}

namespace detail {

// When the current request started routing: set by the pre-routing check
// and read where the answer is recorded, both on the same worker thread.
thread_local std::optional<std::chrono::steady_clock::time_point> request_started;

} // namespace detail

router::router(limits lim, request_metrics* metrics) : limits_(lim), metrics_(metrics) {
  // nop
}

void router::record(const httplib::Request& req, const httplib::Response& res) const {
  std::optional<double> secs;
  auto& started = detail::request_started;
  if (started) {
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - *started).count();
    started.reset();
  }
  if (metrics_ == nullptr)
    return;
  auto path = req.path.empty() ? path_of_target(req.target) : req.path;
  metrics_->record(req.method, label(path), res.status, secs);
}

void router::add(std::string method, std::string pattern, handler fn) {
  route r;
  for (auto seg : split_path(pattern))
    r.segments.emplace_back(seg);
  r.json_body = method == "POST" || method == "PUT";
  r.method = std::move(method);
  r.pattern = std::move(pattern);
  r.fn = std::move(fn);
  routes_.push_back(std::move(r));
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

void router::write(std::string_view path, httplib::Response& res, const api_error& e) const {
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

void router::serve(const httplib::Request& req, httplib::Response& res,
                   const httplib::ContentReader* reader) const {
  dispatch(req, res, reader);
  if (res.status == -1)
    res.status = 200;
  record(req, res);
}

void router::dispatch(const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader* reader) const {
  try {
    auto m = find(req.method, req.path);
    if (m.hit == nullptr) {
      reject(req.method, req.path, m, res);
      if (reader != nullptr && has_body(req))
        force_close(res);
      return;
    }
    for (auto& g : guards_) {
      if (auto err = g(req, *m.hit, res)) {
        write(req.path, res, *err);
        if (reader != nullptr && has_body(req))
          force_close(res);
        return;
      }
    }
    if (m.hit->json_body && req.has_header("Content-Type")
        && !is_json_type(req.get_header_value("Content-Type"))) {
      write(req.path, res,
            {415, "unsupported_media_type",
             "Content-Type must be application/json, not '" + req.get_header_value("Content-Type")
               + "'"});
      if (reader != nullptr && has_body(req))
        force_close(res);
      return;
    }
    request rq{req, std::move(m.params), {}};
    if (!read_body(req, res, reader, rq.body))
      return;
    m.hit->fn(rq, res);
  } catch (const std::exception& e) {
    res.headers.erase("Content-Type");
    write(req.path, res, internal_error(e.what()));
  } catch (...) {
    res.headers.erase("Content-Type");
    write(req.path, res, internal_error("unknown exception"));
  }
}

void router::reject(const std::string& method, const std::string& path, const match& m,
                    httplib::Response& res) const {
  if (m.allow.empty()) {
    write(path, res, not_found("no route for " + path));
    return;
  }
  res.set_header("Allow", m.allow);
  write(path, res,
        {405, "method_not_allowed",
         method + " is not allowed on " + path + " (allowed: " + m.allow + ")"});
}

bool router::answer_error(const httplib::Request& req, httplib::Response& res) const {
  if (!res.body.empty() || res.content_length_ > 0 || res.content_provider_)
    return false;
  // httplib rejects methods it does not know while parsing the request line
  // (a 400 before any handler runs). The contract says 405 with `Allow`.
  if (res.status == 400 && !req.method.empty() && !routed_by_httplib(req.method)) {
    auto path = req.path.empty() ? path_of_target(req.target) : req.path;
    reject(req.method, path, find(req.method, path), res);
    // The headers of a rejected request line were never read.
    force_close(res);
    record(req, res);
    return true;
  }
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
    case 416:
      message = "invalid Range header";
      break;
    default:
      message = "request failed";
      break;
  }
  write(req.path, res, {res.status, code_for_status(res.status), message});
  // A request httplib could not parse leaves the stream at an unknown place.
  if (res.status == 400 || res.status == 414)
    force_close(res);
  record(req, res);
  return true;
}

} // namespace stepwise::http
