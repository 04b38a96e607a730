#include "engine/sealed_json.hpp"

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "engine/secret_box.hpp"

namespace stepwise {

namespace {

constexpr std::string_view marker = "$sealed";
constexpr std::string_view plain_form = "plain";

const boost::json::string* sealed_text(const boost::json::value& v) {
  auto* o = v.if_object();
  if (o == nullptr)
    return nullptr;
  auto* m = o->if_contains(marker);
  return m == nullptr ? nullptr : m->if_string();
}

/// Calls `f(slot)` on every sealed value under `v`, stopping at the first
/// error.
template <class F>
caf::error each_sealed(boost::json::value& v, F& f) {
  if (is_sealed(v))
    return f(v);
  if (auto* o = v.if_object()) {
    for (auto& kv : *o)
      if (auto err = each_sealed(kv.value(), f))
        return err;
  } else if (auto* a = v.if_array()) {
    for (auto& x : *a)
      if (auto err = each_sealed(x, f))
        return err;
  }
  return caf::error{};
}

template <class F>
caf::error each_sealed(boost::json::object& doc, F& f) {
  for (auto& kv : doc)
    if (auto err = each_sealed(kv.value(), f))
      return err;
  return caf::error{};
}

bool holds(const boost::json::value& v) {
  if (is_sealed(v))
    return true;
  if (auto* o = v.if_object())
    return holds_sealed(*o);
  if (auto* a = v.if_array())
    for (auto& x : *a)
      if (holds(x))
        return true;
  return false;
}

} // namespace

bool is_sealed(const boost::json::value& v) {
  return sealed_text(v) != nullptr;
}

caf::expected<boost::json::value> seal_value(const boost::json::value& v, const key_ring* keys,
                                             std::string_view owner) {
  if (keys == nullptr)
    return boost::json::object{{marker, plain_form}, {"value", v}};
  auto text = secret_box::seal(*keys, boost::json::serialize(v), owner);
  if (!text)
    return std::move(text.error());
  return boost::json::object{{marker, std::move(*text)}};
}

caf::expected<boost::json::value> open_value(const boost::json::value& sealed, const key_ring* keys,
                                             std::string_view owner) {
  auto* text = sealed_text(sealed);
  if (text == nullptr)
    return make_error(errc::invalid_argument, "not a sealed value");
  if (*text == plain_form) {
    auto* v = sealed.get_object().if_contains("value");
    return v != nullptr ? *v : boost::json::value{};
  }
  auto plain = secret_box::open(keys, *text, owner);
  if (!plain)
    return std::move(plain.error());
  boost::json::error_code ec;
  auto v = boost::json::parse(*plain, ec);
  if (ec)
    return make_error(errc::secret_key, "the secret value sealed with key '"
                                          + std::string{secret_box::key_id_of(*text)}
                                          + "' does not hold JSON");
  return v;
}

caf::error seal_paths(boost::json::object& doc, const std::vector<std::string>& paths,
                      const key_ring* keys, std::string_view owner) {
  if (paths.empty())
    return caf::error{};
  // Parentheses: braces would make an array holding the object.
  boost::json::value root(std::move(doc));
  caf::error failed;
  for (auto& p : paths) {
    boost::json::error_code ec;
    auto* v = root.find_pointer(p, ec);
    if (v == nullptr || is_sealed(*v))
      continue;
    auto sealed = seal_value(*v, keys, owner);
    if (!sealed) {
      failed = std::move(sealed.error());
      break;
    }
    *v = std::move(*sealed);
  }
  doc = std::move(root.get_object());
  return failed;
}

caf::expected<std::shared_ptr<const boost::json::object>> open_all(
  const std::shared_ptr<const boost::json::object>& doc, const key_ring* keys,
  std::string_view owner, std::vector<std::string>* revealed) {
  if (!doc || !holds_sealed(*doc))
    return doc;
  auto out = *doc;
  auto open = [&](boost::json::value& slot) -> caf::error {
    auto v = open_value(slot, keys, owner);
    if (!v)
      return std::move(v.error());
    if (revealed != nullptr)
      collect_secret_strings(*v, *revealed);
    slot = std::move(*v);
    return caf::error{};
  };
  if (auto err = each_sealed(out, open))
    return err;
  return std::make_shared<const boost::json::object>(std::move(out));
}

caf::expected<size_t> reseal_all(boost::json::object& doc, const key_ring& keys,
                                 std::string_view owner) {
  size_t n = 0;
  auto reseal = [&](boost::json::value& slot) -> caf::error {
    if (secret_box::key_id_of(*sealed_text(slot)) == keys.current().id)
      return caf::error{};
    auto v = open_value(slot, &keys, owner);
    if (!v)
      return std::move(v.error());
    auto sealed = seal_value(*v, &keys, owner);
    if (!sealed)
      return std::move(sealed.error());
    slot = std::move(*sealed);
    ++n;
    return caf::error{};
  };
  if (auto err = each_sealed(doc, reseal))
    return err;
  return n;
}

bool holds_sealed(const boost::json::object& doc) {
  for (auto& kv : doc)
    if (holds(kv.value()))
      return true;
  return false;
}

void mask_sealed(boost::json::object& doc) {
  auto mask = [](boost::json::value& slot) {
    slot = secret_mask;
    return caf::error{};
  };
  static_cast<void>(each_sealed(doc, mask));
}

} // namespace stepwise
