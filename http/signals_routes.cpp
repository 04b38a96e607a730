// `POST /api/v1/operations/{id}/signals/{name}`: a named external event for
// an operation, stored durably with a `signal_received` event.
#include "engine/errc.hpp"
#include "http/body.hpp"
#include "http/encode.hpp"
#include "http/query.hpp"
#include "http/reply.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

/// Reads the payload: a JSON object (an empty body is `{}`), with its
/// optional `signal_id` taken out.
std::optional<api_error> decode_signal(std::string_view body, size_t max_depth,
                                       signal_request& out) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.payload = boost::json::object{};
    return std::nullopt;
  }
  boost::json::value v;
  if (auto err = parse_json(body, max_depth, v))
    return err;
  if (!v.is_object())
    return invalid_argument("the signal's body must be a JSON object (its payload)");
  auto& obj = v.as_object();
  if (auto id = obj.if_contains("signal_id")) {
    if (!id->is_string() || id->as_string().empty() || id->as_string().size() > 255)
      return invalid_argument("field 'signal_id' must be a string of 1 to 255 characters");
    out.signal_id = std::string{id->as_string()};
    obj.erase("signal_id");
  }
  out.payload = std::move(v);
  return std::nullopt;
}

void signal(const router& r, const route_context& ctx, request& rq, server_response& res) {
  if (auto err = query{rq.raw.params}.only({}))
    return r.write(rq.raw.path, res, *err);
  signal_request sig;
  sig.name = rq.params[1];
  if (!valid_signal_name(sig.name))
    return r.write(rq.raw.path, res,
                   invalid_argument("the signal name must be 1 to 64 characters of "
                                    "A-Z a-z 0-9 _ . -"));
  if (auto err = decode_signal(rq.body, ctx.lim.max_json_depth, sig))
    return r.write(rq.raw.path, res, *err);
  sig.by = caller_of(ctx, rq);
  auto got = ctx.eng.signal(rq.params[0], std::move(sig));
  if (!got)
    return r.write(rq.raw.path, res, from_engine(got.error()));
  write_json_text(res, got->duplicate ? 200 : 202, operation_text(got->op));
}

} // namespace

void add_signals_routes(router& r, const route_context& ctx) {
  add_route(r, ctx, "POST", "/api/v1/operations/{id}/signals/{name}", signal);
}

} // namespace stepwise::http
