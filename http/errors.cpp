#include "http/errors.hpp"

#include "http/server_response.hpp"

#include "engine/json_text.hpp"

namespace stepwise::http {

api_error malformed_json(std::string message) {
  return {400, "malformed_json", std::move(message)};
}

api_error invalid_argument(std::string message) {
  return {400, "invalid_argument", std::move(message)};
}

api_error not_found(std::string message) {
  return {404, "not_found", std::move(message)};
}

api_error internal_error(std::string message) {
  return {500, "internal_error", std::move(message)};
}

api_error shutting_down() {
  return {503, "shutting_down", "the server is shutting down"};
}

api_error events_gone(int64_t horizon) {
  auto h = std::to_string(horizon);
  api_error e{410, "gone",
              "events before seq " + std::to_string(horizon + 1)
                + " were removed by retention: read again from after=" + h
                + " (after=0 starts there too)"};
  e.details["horizon"] = horizon;
  return e;
}

namespace {

// The length of the valid UTF-8 sequence at `s[i]` (RFC 3629: no overlong
// form, no surrogate, nothing past U+10FFFF), or 0.
size_t sequence_at(std::string_view s, size_t i) {
  auto lead = static_cast<unsigned char>(s[i]);
  size_t n = lead < 0x80                    ? 1
             : lead >= 0xC2 && lead <= 0xDF ? 2
             : lead >= 0xE0 && lead <= 0xEF ? 3
             : lead >= 0xF0 && lead <= 0xF4 ? 4
                                            : 0;
  if (n < 2)
    return n;
  if (i + n > s.size())
    return 0;
  uint32_t cp = lead & (0xFFu >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (c & 0x3Fu);
  }
  static constexpr uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

} // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto n = sequence_at(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string error_body(const api_error& e) {
  boost::json::object inner;
  inner["code"] = e.code;
  inner["message"] = valid_utf8(e.message);
  for (auto& [key, value] : e.details)
    inner[key] = value;
  boost::json::object outer;
  outer["error"] = std::move(inner);
  return boost::json::serialize(outer);
}

void write_error(server_response& res, const api_error& e) {
  res.status = e.status;
  if (e.status == 503)
    res.headers.set("Retry-After", "1");
  res.set_content(error_body(e), "application/json");
}

} // namespace stepwise::http
