#include "storage/schedule_row.hpp"

#include "engine/errc.hpp"
#include "storage/codec.hpp"

namespace stepwise::codec {

namespace {

void put_time(boost::json::object& o, const char* key, const std::optional<time_point>& t) {
  if (t)
    o[key] = to_micros(*t);
}

caf::error damaged(const std::string& what) {
  return make_error(errc::store_failure, "stored schedule: " + what);
}

} // namespace

std::string encode_schedule(const schedule& s) {
  boost::json::object o;
  o["id"] = s.id;
  o["workflow"] = s.workflow;
  if (s.version)
    o["version"] = *s.version;
  o["input"] = s.input;
  if (!s.cron.empty())
    o["cron"] = s.cron;
  if (s.every)
    o["every"] = s.every->count();
  if (s.offset.count())
    o["offset"] = s.offset.count();
  o["time_zone"] = s.time_zone;
  o["overlap"] = to_string(s.overlap);
  o["catch_up"] = to_string(s.catch_up);
  o["catch_up_window"] = s.catch_up_window.count();
  o["paused"] = s.paused;
  put_time(o, "end_at", s.end_at);
  o["revision"] = s.revision;
  o["created_at"] = to_micros(s.created_at);
  o["updated_at"] = to_micros(s.updated_at);
  o["handled_until"] = to_micros(s.handled_until);
  o["last_operation"] = s.last_operation;
  put_time(o, "last_fire", s.last_fire);
  o["fired"] = s.fired;
  o["skipped"] = s.skipped;
  return encode_object(o);
}

caf::expected<schedule> decode_schedule(std::string_view text) {
  auto parsed = decode_object(text, "schedule");
  if (!parsed)
    return std::move(parsed.error());
  auto& o = *parsed;
  schedule s;
  try {
    auto text_of = [&](const char* key) { return std::string{o.at(key).as_string()}; };
    auto micros = [&](const char* key) { return o.at(key).to_number<int64_t>(); };
    auto opt_time = [&](const char* key) -> std::optional<time_point> {
      if (auto* v = o.if_contains(key))
        return from_micros(v->to_number<int64_t>());
      return std::nullopt;
    };
    s.id = text_of("id");
    s.workflow = text_of("workflow");
    if (auto* v = o.if_contains("version"))
      s.version = static_cast<int32_t>(v->to_number<int64_t>());
    s.input = o.at("input").as_object();
    if (auto* v = o.if_contains("cron"))
      s.cron = std::string{v->as_string()};
    if (auto* v = o.if_contains("every"))
      s.every = duration{v->to_number<int64_t>()};
    if (auto* v = o.if_contains("offset"))
      s.offset = duration{v->to_number<int64_t>()};
    s.time_zone = text_of("time_zone");
    auto overlap = parse_overlap(o.at("overlap").as_string());
    auto catch_up = parse_catch_up(o.at("catch_up").as_string());
    if (!overlap || !catch_up)
      return damaged("unknown overlap or catch_up policy");
    s.overlap = *overlap;
    s.catch_up = *catch_up;
    s.catch_up_window = duration{micros("catch_up_window")};
    s.paused = o.at("paused").as_bool();
    s.end_at = opt_time("end_at");
    s.revision = micros("revision");
    s.created_at = from_micros(micros("created_at"));
    s.updated_at = from_micros(micros("updated_at"));
    s.handled_until = from_micros(micros("handled_until"));
    s.last_operation = text_of("last_operation");
    s.last_fire = opt_time("last_fire");
    s.fired = micros("fired");
    s.skipped = micros("skipped");
  } catch (const std::exception& e) {
    return damaged(std::string{"a field is missing or of the wrong type ("} + e.what() + ")");
  }
  return s;
}

} // namespace stepwise::codec
