#include "storage/rotate_secrets.hpp"

#include "engine/errc.hpp"
#include "engine/sealed_json.hpp"
#include "storage/codec.hpp"

namespace stepwise {

namespace {

/// Seals the values of one JSON column again; returns whether any changed.
caf::expected<bool> reseal_column(std::string& text, const key_ring& keys, const std::string& owner,
                                  std::string_view what) {
  auto doc = codec::decode_object(text, what);
  if (!doc)
    return std::move(doc.error());
  auto n = reseal_all(*doc, keys, owner);
  if (!n)
    return std::move(n.error());
  if (*n == 0)
    return false;
  text = codec::encode_object(*doc);
  return true;
}

/// Seals the values of `row` again; returns whether it needs a rewrite.
caf::expected<bool> reseal_row(sealed_row& row, const key_ring& keys) {
  auto input = reseal_column(row.input, keys, row.id, "operation input");
  if (!input)
    return input;
  auto data = reseal_column(row.data, keys, row.id, "operation data");
  if (!data)
    return data;
  return *input || *data;
}

} // namespace

caf::expected<rotation_report> rotate_secrets(sealed_rows& rows, const key_ring& keys,
                                              const rotation_options& opts) {
  rotation_report rep;
  auto batch = opts.batch > 0 ? opts.batch : 1;
  do {
    rep.passes += 1;
    rep.changed = 0;
    std::string after;
    for (;;) {
      auto found = rows.sealed_after(after, batch);
      if (!found)
        return std::move(found.error());
      if (found->empty())
        break;
      after = found->back().id;
      std::vector<sealed_row> writes;
      for (auto& row : *found) {
        rep.checked += 1;
        auto changed = reseal_row(row, keys);
        if (!changed) {
          rep.failures[row.id] = message_of(changed.error());
          continue;
        }
        rep.failures.erase(row.id);
        if (*changed)
          writes.push_back(std::move(row));
      }
      auto written = rows.rewrite_sealed(writes);
      if (!written)
        return std::move(written.error());
      rep.rewritten += *written;
      rep.changed += writes.size() - *written;
      if (opts.progress)
        opts.progress(rep);
    }
  } while (rep.changed > 0 && rep.passes < opts.max_passes);
  return rep;
}

} // namespace stepwise
