#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json.hpp>

/// A compact JSON writer for the stored forms. Unlike `boost::json::serialize`
/// it always writes valid UTF-8: a byte sequence that is not UTF-8 (an
/// exception message from a driver, say) becomes U+FFFD. A database that
/// checks its JSON (PostgreSQL jsonb) would otherwise refuse the whole
/// batch, and a strict reader could never load the row again.
namespace stepwise::json_text {

/// Appends `s` as a quoted JSON string.
void append_string(std::string& out, std::string_view s);

/// Appends the integer `x` as a JSON number. Inline: step records write
/// several per step on every checkpoint.
template <class Int>
void append_int(std::string& out, Int x) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  out.append(buf, res.ptr);
}

/// Appends `v` as compact JSON.
void append_value(std::string& out, const boost::json::value& v);

/// Appends `obj` as compact JSON.
void append_object(std::string& out, const boost::json::object& obj);

/// Parses stored JSON text leniently: invalid UTF-8 and deep nesting are
/// accepted, so that no stored row becomes unreadable.
boost::json::value parse(std::string_view text, boost::json::error_code& ec);

} // namespace stepwise::json_text
