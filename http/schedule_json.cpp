#include "http/schedule_json.hpp"

#include <algorithm>
#include <string_view>

#include "engine/duration_text.hpp"
#include "engine/redact.hpp"
#include "engine/sealed_json.hpp"
#include "http/body.hpp"
#include "http/encode.hpp"
#include "http/json_fields.hpp"

namespace stepwise::http {

namespace {

namespace json = boost::json;

constexpr std::string_view schedule_definition_fields[] = {
  "id",        "workflow", "version",  "input",           "cron",   "every", "offset",
  "time_zone", "overlap",  "catch_up", "catch_up_window", "paused", "end_at"};

constexpr std::string_view schedule_state_fields[] = {"revision",  "created_at",     "updated_at",
                                                      "next_fire", "last_operation", "last_fire",
                                                      "fired",     "skipped"};

template <size_t N>
bool field_listed(const std::string_view (&names)[N], std::string_view k) {
  return std::find(std::begin(names), std::end(names), k) != std::end(names);
}

std::optional<api_error> check_schedule_fields(const json::object& obj) {
  for (auto& kv : obj) {
    auto k = kv.key();
    if (field_listed(schedule_definition_fields, k))
      continue;
    if (field_listed(schedule_state_fields, k))
      return invalid_argument("field '" + std::string(k)
                              + "' is written by the engine, not by clients: leave it out");
    return invalid_argument("unknown field '" + std::string(k)
                            + "' (allowed: id, workflow, version, input, cron, every, "
                              "offset, time_zone, overlap, catch_up, catch_up_window, paused, "
                              "end_at)");
  }
  return std::nullopt;
}

// Reads one of a policy's names (`parse` returns none for another).
template <class T, class Parse>
std::optional<api_error> policy_field(const json::object& obj, std::string_view field,
                                      const char* names, Parse parse, T& out) {
  std::optional<std::string> s;
  if (auto err = text_field(obj, field, s); err || !s)
    return err;
  auto p = parse(*s);
  if (!p)
    return invalid_argument("field '" + std::string(field) + "' must be one of " + names + ", not "
                            + value_quoted(*s));
  out = *p;
  return std::nullopt;
}

std::optional<api_error> decode_schedule_id(const json::object& obj, const std::string& path_id,
                                            std::string& out) {
  if (path_id.empty())
    return required_text_field(obj, "id", out);
  std::optional<std::string> given;
  if (auto err = text_field(obj, "id", given))
    return err;
  if (given && *given != path_id)
    return invalid_argument("field 'id' is " + value_quoted(*given)
                            + " but the path names schedule " + value_quoted(path_id)
                            + " (leave 'id' out, or make them match)");
  out = path_id;
  return std::nullopt;
}

// The trigger: exactly one of `cron` and `every`.
std::optional<api_error> decode_schedule_when(const json::object& obj, schedule& s) {
  std::optional<std::string> cron;
  if (auto err = text_field(obj, "cron", cron))
    return err;
  if (auto err = duration_field(obj, "every", s.every))
    return err;
  if (cron && s.every)
    return invalid_argument("fields 'cron' and 'every' are both given: a schedule takes one");
  if (!cron && !s.every)
    return invalid_argument("field 'cron' (e.g. \"0 3 * * *\") or 'every' (e.g. \"30s\") "
                            "is required");
  s.cron = cron.value_or("");
  // The engine checks that it is under `every` (and only with it).
  std::optional<duration> offset;
  if (auto err = duration_field(obj, "offset", offset))
    return err;
  s.offset = offset.value_or(duration{0});
  return std::nullopt;
}

std::optional<api_error> decode_schedule_options(const json::object& obj, schedule& s) {
  std::optional<std::string> zone;
  if (auto err = text_field(obj, "time_zone", zone))
    return err;
  s.time_zone = zone.value_or("UTC");
  if (auto err = policy_field(obj, "overlap", "skip, queue, allow", parse_overlap, s.overlap))
    return err;
  if (auto err = policy_field(obj, "catch_up", "none, latest, all", parse_catch_up, s.catch_up))
    return err;
  std::optional<duration> window;
  if (auto err = duration_field(obj, "catch_up_window", window))
    return err;
  if (window)
    s.catch_up_window = *window;
  if (auto p = obj.if_contains("paused"); p != nullptr && !p->is_null()) {
    if (!p->is_bool())
      return wrong_type("paused", "a boolean", *p);
    s.paused = p->get_bool();
  }
  std::optional<std::string> end;
  if (auto err = text_field(obj, "end_at", end); err || !end)
    return err;
  auto t = parse_time(*end);
  if (!t)
    return invalid_argument("field 'end_at' must be an RFC 3339 time such as "
                            "2027-01-01T00:00:00Z, not "
                            + value_quoted(*end));
  s.end_at = *t;
  return std::nullopt;
}

json::value schedule_text_or_null(const std::string& s) {
  if (s.empty())
    return nullptr;
  return json::value(s);
}

} // namespace

std::optional<api_error> decode_schedule(const json::value& body, const std::string& path_id,
                                         schedule& out) {
  auto obj = body.if_object();
  if (obj == nullptr)
    return wrong_type("(the body)", "a JSON object (a schedule's definition)", body);
  if (auto err = check_schedule_fields(*obj))
    return err;
  schedule s;
  if (auto err = decode_schedule_id(*obj, path_id, s.id))
    return err;
  if (auto err = required_text_field(*obj, "workflow", s.workflow))
    return err;
  if (auto err = decode_version(*obj, "version", s.version))
    return err;
  auto in = obj->if_contains("input");
  if (in == nullptr || in->is_null())
    return invalid_argument("field 'input' is required (use {} for none)");
  if (!in->is_object())
    return wrong_type("input", "an object", *in);
  s.input = in->get_object();
  if (auto err = decode_schedule_when(*obj, s))
    return err;
  if (auto err = decode_schedule_options(*obj, s))
    return err;
  set_definition(out, s);
  return std::nullopt;
}

json::object to_json(const schedule_view& v) {
  auto& s = v.schedule;
  json::object out;
  out["id"] = s.id;
  out["workflow"] = s.workflow;
  out["version"] = s.version ? json::value(*s.version) : json::value(nullptr);
  out["input"] = s.input;
  out["cron"] = schedule_text_or_null(s.cron);
  out["every"] = s.every ? json::value(format_duration_text(*s.every)) : json::value(nullptr);
  out["offset"] = s.every ? json::value(format_duration_text(s.offset)) : json::value(nullptr);
  out["time_zone"] = s.time_zone;
  out["overlap"] = to_string(s.overlap);
  out["catch_up"] = to_string(s.catch_up);
  out["catch_up_window"] = format_duration_text(s.catch_up_window);
  out["paused"] = s.paused;
  out["end_at"] = time_or_null(s.end_at);
  out["revision"] = s.revision;
  out["created_at"] = format_time(s.created_at);
  out["updated_at"] = format_time(s.updated_at);
  out["next_fire"] = time_or_null(v.next_fire);
  out["last_operation"] = schedule_text_or_null(s.last_operation);
  out["last_fire"] = time_or_null(s.last_fire);
  out["fired"] = s.fired;
  out["skipped"] = s.skipped;
  return out;
}

schedule_view masked(schedule_view v, const registry& workflows) {
  // Every version's paths: a schedule without a version fires the newest,
  // which may be registered later than the schedule was written.
  std::vector<std::string> secrets;
  for (auto version : workflows.versions(v.schedule.workflow))
    if (auto wf = workflows.find(v.schedule.workflow, version))
      secrets.insert(secrets.end(), wf->secrets().begin(), wf->secrets().end());
  auto& input = v.schedule.input;
  if (!secrets.empty())
    input = mask_paths(input, secrets);
  if (holds_sealed(input))
    mask_sealed(input);
  return v;
}

} // namespace stepwise::http
