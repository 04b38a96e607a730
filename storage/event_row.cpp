#include "storage/event_row.hpp"

#include "engine/errc.hpp"
#include "storage/codec.hpp"

namespace stepwise {

event_row encode_event_row(const event& ev, std::string& extra_buf) {
  event_row row;
  row.time = to_micros(ev.time);
  row.operation_id = ev.operation_id;
  row.type = to_string(ev.type);
  row.step = ev.step;
  row.attempt = ev.attempt;
  row.state = ev.state;
  row.error = ev.error;
  if (!ev.by.empty()) {
    // Kept in `extra` under `by_key`, which no type uses, so that it
    // needs no column (and no migration) of its own.
    auto extra = ev.extra;
    extra[by_key] = ev.by;
    extra_buf.clear();
    codec::encode_object(extra_buf, extra);
    row.extra = extra_buf;
  } else if (!ev.extra.empty()) {
    extra_buf.clear();
    codec::encode_object(extra_buf, ev.extra);
    row.extra = extra_buf;
  }
  return row;
}

event_row read_event_row(const column_reader& cols) {
  event_row row;
  row.seq = cols.int64(0);
  row.time = cols.int64(1);
  row.operation_id = cols.text(2);
  row.type = cols.text(3);
  row.step = cols.text(4);
  row.attempt = static_cast<int32_t>(cols.int64(5));
  row.state = cols.text(6);
  row.error = cols.text(7);
  row.extra = cols.optional_text(8);
  return row;
}

caf::expected<event> decode_event_row(const event_row& row) {
  event ev;
  ev.seq = row.seq;
  auto type = parse_event_type(row.type);
  if (!type)
    return make_error(errc::store_failure, "reading event " + std::to_string(row.seq)
                                             + " failed: unknown type '" + std::string{row.type}
                                             + "'");
  ev.type = *type;
  if (row.extra) {
    auto extra = codec::decode_object(*row.extra, "event extra");
    if (!extra)
      return std::move(extra.error());
    ev.extra = std::move(*extra);
    if (auto i = ev.extra.find(by_key); i != ev.extra.end()) {
      if (auto* by = i->value().if_string())
        ev.by = std::string{by->data(), by->size()};
      ev.extra.erase(i);
    }
  }
  ev.time = from_micros(row.time);
  ev.operation_id = std::string{row.operation_id};
  ev.step = std::string{row.step};
  ev.attempt = row.attempt;
  ev.state = std::string{row.state};
  ev.error = std::string{row.error};
  return ev;
}

} // namespace stepwise
