#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>
#include <caf/expected.hpp>

#include "engine/operation.hpp"
#include "engine/time.hpp"

/// Backend-independent stored forms, shared by every SQL backend so that
/// the same data reads back the same whichever database holds it.
///
/// Decoding reads what a database returned: a malformed value there means
/// the store is damaged, so decoders fail with `errc::store_failure` and a
/// context naming the field. Only `decode_cursor` reads client input and
/// fails with `errc::invalid_argument`. Nothing here throws.
namespace stepwise::codec {

// -- JSON documents -----------------------------------------------------------

/// Returns `steps` as compact JSON text: an array of objects with short
/// keys, since every checkpoint rewrites them: `n` name, `w` weight, `s`
/// state, `a` attempts, `fa`/`la`/`na` first/last/next attempt time (us),
/// `d` duration_ms, `e` last_error, `c`/`ca` compensation state/attempts.
/// Zero counts, absent times, empty errors and a pending compensation are
/// left out.
std::string encode_steps(const std::vector<step_record>& steps);

/// Appends what `encode_steps` returns to `out` (reusing its capacity).
void encode_steps(std::string& out, const std::vector<step_record>& steps);

/// Parses what `encode_steps` wrote.
[[nodiscard]] caf::expected<std::vector<step_record>> decode_steps(std::string_view text);

/// Appends `signals` to `out` as a JSON array of objects: `n` name, `i` id,
/// `p` payload, `at` received time (us), `c` the step that consumed it
/// (left out while none did). An empty list is `[]`.
void encode_signals(std::string& out, const std::vector<signal_record>& signals);

/// Parses what `encode_signals` wrote.
[[nodiscard]] caf::expected<std::vector<signal_record>> decode_signals(std::string_view text);

/// Returns `x` as compact JSON text (operation input and data, event extra),
/// always valid UTF-8 (see json_text.hpp).
std::string encode_object(const boost::json::object& x);

/// Appends what `encode_object` returns to `out` (reusing its capacity).
void encode_object(std::string& out, const boost::json::object& x);

/// Parses a JSON object; `what` names the field in the error context.
[[nodiscard]] caf::expected<boost::json::object> decode_object(std::string_view text,
                                                               std::string_view what);

// -- times --------------------------------------------------------------------

/// Returns the stored form of an optional time (NULL when absent).
inline std::optional<int64_t> encode_time(const std::optional<time_point>& t) {
  if (t)
    return to_micros(*t);
  return std::nullopt;
}

/// Returns the time of a stored optional time.
inline std::optional<time_point> decode_time(std::optional<int64_t> us) {
  if (us)
    return from_micros(*us);
  return std::nullopt;
}

// -- list cursor --------------------------------------------------------------

/// The list position after which the next page starts: the last item of a
/// page, as the list order (created time, then id) sees it.
struct list_position {
  time_point created_at;
  std::string id;
};

/// Returns an opaque, URL-safe cursor for `pos`.
std::string encode_cursor(const list_position& pos);

/// Parses a cursor from `encode_cursor`; anything else is an
/// `errc::invalid_argument` error (the cursor comes from clients).
[[nodiscard]] caf::expected<list_position> decode_cursor(std::string_view text);

} // namespace stepwise::codec
