#include "storage/codec.hpp"

#include <charconv>

#include "engine/errc.hpp"
#include "engine/json_text.hpp"

namespace stepwise::codec {

namespace {

namespace json = boost::json;

// -- step records -------------------------------------------------------------

caf::error bad_step(size_t index, std::string_view why) {
  return make_error(errc::store_failure, "decoding steps failed: step " + std::to_string(index)
                                           + ": " + std::string{why});
}

// Reads an optional integer member; a present member of another type is an
// error, so damaged rows are noticed rather than read as defaults.
bool read_int(const json::object& obj, std::string_view key, std::optional<int64_t>& out) {
  auto* v = obj.if_contains(key);
  if (v == nullptr)
    return true;
  if (auto* i = v->if_int64()) {
    out = *i;
    return true;
  }
  return false;
}

bool read_string(const json::object& obj, std::string_view key, std::string& out) {
  auto* v = obj.if_contains(key);
  if (v == nullptr)
    return true;
  if (auto* s = v->if_string()) {
    out.assign(s->data(), s->size());
    return true;
  }
  return false;
}

caf::expected<step_record> decode_step(const json::value& v, size_t index) {
  auto* obj = v.if_object();
  if (obj == nullptr)
    return bad_step(index, "not an object");
  step_record rec;
  std::string state, compensation;
  std::optional<int64_t> weight, attempts, first, last, next, duration, compensation_attempts, run;
  if (!read_string(*obj, "n", rec.name) || !read_string(*obj, "s", state)
      || !read_string(*obj, "e", rec.last_error) || !read_int(*obj, "w", weight)
      || !read_int(*obj, "a", attempts) || !read_int(*obj, "fa", first)
      || !read_int(*obj, "la", last) || !read_int(*obj, "na", next)
      || !read_int(*obj, "d", duration) || !read_string(*obj, "c", compensation)
      || !read_int(*obj, "ca", compensation_attempts) || !read_int(*obj, "r", run))
    return bad_step(index, "a member has the wrong type");
  auto parsed = parse_step_state(state);
  if (!parsed)
    return bad_step(index, "unknown state '" + state + "'");
  rec.state = *parsed;
  if (!compensation.empty()) {
    auto comp = parse_step_state(compensation);
    if (!comp)
      return bad_step(index, "unknown compensation state '" + compensation + "'");
    rec.compensation = *comp;
  }
  rec.compensation_attempts = static_cast<int32_t>(compensation_attempts.value_or(0));
  rec.weight = static_cast<int32_t>(weight.value_or(0));
  rec.attempts = static_cast<int32_t>(attempts.value_or(0));
  rec.first_attempt_at = decode_time(first);
  rec.last_attempt_at = decode_time(last);
  rec.next_attempt_at = decode_time(next);
  rec.duration_ms = duration.value_or(0);
  rec.run = static_cast<int32_t>(run.value_or(0));
  return rec;
}

// -- base64url (no padding) ---------------------------------------------------

constexpr std::string_view b64_chars =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string b64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += b64_chars[(acc >> bits) & 0x3F];
    }
  }
  if (bits > 0)
    out += b64_chars[(acc << (6 - bits)) & 0x3F];
  return out;
}

std::optional<std::string> b64_decode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    auto pos = b64_chars.find(c);
    if (pos == std::string_view::npos)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  // Only the canonical form is accepted: leftover bits must be zero.
  if (bits >= 6 || (acc & ((1u << bits) - 1)) != 0)
    return std::nullopt;
  return out;
}

} // namespace

// -- JSON documents -----------------------------------------------------------

std::string encode_steps(const std::vector<step_record>& steps) {
  std::string out;
  encode_steps(out, steps);
  return out;
}

void encode_steps(std::string& out, const std::vector<step_record>& steps) {
  // Written by hand rather than through json::object: this runs for every
  // checkpoint, and building the objects cost more than the SQL.
  out += '[';
  bool first = true;
  for (auto& s : steps) {
    if (!first)
      out += ',';
    first = false;
    out += "{\"n\":";
    json_text::append_string(out, s.name);
    out += ",\"w\":";
    json_text::append_int(out, s.weight);
    out += ",\"s\":\"";
    out += to_string(s.state);
    out += '"';
    auto member = [&out](const char* key, int64_t value) {
      out += ",\"";
      out += key;
      out += "\":";
      json_text::append_int(out, value);
    };
    if (s.attempts != 0)
      member("a", s.attempts);
    if (s.first_attempt_at)
      member("fa", to_micros(*s.first_attempt_at));
    if (s.last_attempt_at)
      member("la", to_micros(*s.last_attempt_at));
    if (s.next_attempt_at)
      member("na", to_micros(*s.next_attempt_at));
    if (s.duration_ms != 0)
      member("d", s.duration_ms);
    if (!s.last_error.empty()) {
      out += ",\"e\":";
      json_text::append_string(out, s.last_error);
    }
    if (s.compensation != step_state::pending) {
      out += ",\"c\":\"";
      out += to_string(s.compensation);
      out += '"';
    }
    if (s.compensation_attempts != 0)
      member("ca", s.compensation_attempts);
    if (s.run != 0)
      member("r", s.run);
    out += '}';
  }
  out += ']';
}

caf::expected<std::vector<step_record>> decode_steps(std::string_view text) {
  json::error_code ec;
  auto v = json_text::parse(text, ec);
  if (ec)
    return make_error(errc::store_failure, "decoding steps failed: " + ec.message());
  auto* arr = v.if_array();
  if (arr == nullptr)
    return make_error(errc::store_failure, "decoding steps failed: not a JSON array");
  std::vector<step_record> out;
  out.reserve(arr->size());
  for (size_t i = 0; i < arr->size(); ++i) {
    auto rec = decode_step((*arr)[i], i);
    if (!rec)
      return std::move(rec.error());
    out.emplace_back(std::move(*rec));
  }
  return out;
}

std::string encode_object(const boost::json::object& x) {
  std::string out;
  json_text::append_object(out, x);
  return out;
}

void encode_object(std::string& out, const boost::json::object& x) {
  json_text::append_object(out, x);
}

caf::expected<boost::json::object> decode_object(std::string_view text, std::string_view what) {
  json::error_code ec;
  auto v = json_text::parse(text, ec);
  if (ec)
    return make_error(errc::store_failure,
                      "decoding " + std::string{what} + " failed: " + ec.message());
  if (auto* obj = v.if_object())
    return std::move(*obj);
  return make_error(errc::store_failure,
                    "decoding " + std::string{what} + " failed: not a JSON object");
}

// -- list cursor --------------------------------------------------------------

std::string encode_cursor(const list_position& pos) {
  return b64_encode(std::to_string(to_micros(pos.created_at)) + ':' + pos.id);
}

caf::expected<list_position> decode_cursor(std::string_view text) {
  auto fail = [] { return make_error(errc::invalid_argument, "malformed cursor"); };
  auto raw = b64_decode(text);
  if (!raw)
    return fail();
  auto colon = raw->find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == raw->size())
    return fail();
  int64_t us = 0;
  auto first = raw->data();
  auto last = raw->data() + colon;
  auto [end, ec] = std::from_chars(first, last, us);
  if (ec != std::errc{} || end != last)
    return fail();
  return list_position{from_micros(us), raw->substr(colon + 1)};
}

} // namespace stepwise::codec
