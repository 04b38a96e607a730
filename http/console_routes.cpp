#include "http/console_routes.hpp"

#include "http/console_assets.hpp"
#include "http/query.hpp"

namespace stepwise::http {

namespace {

const console_asset* find_asset(std::string_view name) {
  for (auto& a : console_assets())
    if (name == a.name)
      return &a;
  return nullptr;
}

void redirect_to_console(const router& r, const request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  res.status = 302;
  res.headers.set("Location", "/ui/");
}

void serve_asset(const router& r, const request& rq, server_response& res, std::string_view name) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  auto a = find_asset(name);
  if (a == nullptr)
    return r.write(rq.raw.path, res, not_found("the console has no file " + std::string(name)));
  // The console runs only its own files and talks only to this server.
  res.headers.set("Content-Security-Policy",
                  "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                  "base-uri 'none'; frame-ancestors 'none'; form-action 'self'");
  res.headers.set("X-Content-Type-Options", "nosniff");
  res.headers.set("Referrer-Policy", "no-referrer");
  // The files change with the binary: revalidate rather than cache.
  res.headers.set("Cache-Control", "no-cache");
  res.status = 200;
  res.set_content(std::string(a->body), a->content_type);
}

} // namespace

void add_console_routes(router& r, const route_context&) {
  const router* rp = &r;
  r.add("GET", "/", [rp](request& rq, server_response& res) { redirect_to_console(*rp, rq, res); });
  r.add("GET", "/ui",
        [rp](request& rq, server_response& res) { redirect_to_console(*rp, rq, res); });
  r.add("GET", "/ui/",
        [rp](request& rq, server_response& res) { serve_asset(*rp, rq, res, "index.html"); });
  r.add("GET", "/ui/{asset}",
        [rp](request& rq, server_response& res) { serve_asset(*rp, rq, res, rq.params[0]); });
}

} // namespace stepwise::http
