#include "engine/json_text.hpp"

#include "engine/utf8.hpp"

namespace stepwise::json_text {

namespace {

namespace json = boost::json;

void append_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      constexpr char hex[] = "0123456789abcdef";
      char buf[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
      out.append(buf, sizeof(buf));
    }
  }
}

} // namespace

void append_string(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run that needs no escape in one go.
    size_t run = i;
    while (run < s.size()) {
      auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
        break;
      ++run;
    }
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size())
      break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      append_escape(out, c);
      ++i;
    } else if (auto n = utf8::sequence_length(s.substr(i)); n > 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += utf8::replacement;
      ++i;
    }
  }
  out += '"';
}

void append_object(std::string& out, const json::object& obj) {
  out += '{';
  bool first = true;
  for (auto& kv : obj) {
    if (!first)
      out += ',';
    first = false;
    append_string(out, kv.key());
    out += ':';
    append_value(out, kv.value());
  }
  out += '}';
}

void append_value(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      return;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::int64:
      append_int(out, v.get_int64());
      return;
    case json::kind::uint64:
      append_int(out, v.get_uint64());
      return;
    case json::kind::double_:
      // Boost writes doubles so that they read back as doubles (3.0 as
      // "3E0", not "3"), keeping the type across a round trip.
      out += json::serialize(v);
      return;
    case json::kind::string:
      append_string(out, v.get_string());
      return;
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (auto& x : v.get_array()) {
        if (!first)
          out += ',';
        first = false;
        append_value(out, x);
      }
      out += ']';
      return;
    }
    case json::kind::object:
      append_object(out, v.get_object());
      return;
  }
}

json::value parse(std::string_view text, json::error_code& ec) {
  json::parse_options opts;
  opts.allow_invalid_utf8 = true;
  opts.max_depth = 10'000;
  return json::parse(text, ec, {}, opts);
}

} // namespace stepwise::json_text
