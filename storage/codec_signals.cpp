// The stored form of an operation's signals (see codec.hpp).
#include "storage/codec.hpp"

#include "engine/errc.hpp"
#include "engine/json_text.hpp"

namespace stepwise::codec {

namespace {

namespace json = boost::json;

caf::error bad_signal(size_t index, std::string_view why) {
  return make_error(errc::store_failure, "decoding signals failed: signal " + std::to_string(index)
                                           + ": " + std::string{why});
}

caf::expected<signal_record> decode_signal(const json::value& v, size_t index) {
  auto* obj = v.if_object();
  if (obj == nullptr)
    return bad_signal(index, "not an object");
  auto* name = obj->if_contains("n");
  auto* id = obj->if_contains("i");
  auto* at = obj->if_contains("at");
  auto* consumed = obj->if_contains("c");
  if (name == nullptr || !name->is_string() || id == nullptr || !id->is_string() || at == nullptr
      || !at->is_int64() || (consumed != nullptr && !consumed->is_string()))
    return bad_signal(index, "a member is missing or has the wrong type");
  signal_record rec;
  rec.name = std::string{name->get_string()};
  rec.id = std::string{id->get_string()};
  if (auto* p = obj->if_contains("p"))
    rec.payload = *p;
  rec.received_at = from_micros(at->get_int64());
  if (consumed != nullptr)
    rec.consumed_by = std::string{consumed->get_string()};
  return rec;
}

} // namespace

void encode_signals(std::string& out, const std::vector<signal_record>& signals) {
  out += '[';
  bool first = true;
  for (auto& s : signals) {
    if (!first)
      out += ',';
    first = false;
    out += "{\"n\":";
    json_text::append_string(out, s.name);
    out += ",\"i\":";
    json_text::append_string(out, s.id);
    out += ",\"p\":";
    json_text::append_value(out, s.payload);
    out += ",\"at\":";
    json_text::append_int(out, to_micros(s.received_at));
    if (!s.consumed_by.empty()) {
      out += ",\"c\":";
      json_text::append_string(out, s.consumed_by);
    }
    out += '}';
  }
  out += ']';
}

caf::expected<std::vector<signal_record>> decode_signals(std::string_view text) {
  json::error_code ec;
  auto v = json_text::parse(text, ec);
  if (ec)
    return make_error(errc::store_failure, "decoding signals failed: " + ec.message());
  auto* arr = v.if_array();
  if (arr == nullptr)
    return make_error(errc::store_failure, "decoding signals failed: not a JSON array");
  std::vector<signal_record> out;
  out.reserve(arr->size());
  for (size_t i = 0; i < arr->size(); ++i) {
    auto rec = decode_signal((*arr)[i], i);
    if (!rec)
      return std::move(rec.error());
    out.emplace_back(std::move(*rec));
  }
  return out;
}

} // namespace stepwise::codec
