#include "engine/step_context.hpp"

#include "engine/clock.hpp"
#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "engine/sealed_json.hpp"
#include "engine/step_result.hpp"

#include <string_view>

namespace stepwise {

namespace {

// Overrides live in the transient map under "override" US component US key
// (US: the unit separator, which no component name holds), so that they
// sort by component, then key, and travel wherever transient values do.
constexpr char unit_separator = '\x1f';
constexpr std::string_view override_prefix = "override\x1f";

} // namespace

std::vector<override_value> overrides_of(const transient_map& transient) {
  std::vector<override_value> out;
  for (auto i = transient.lower_bound(std::string{override_prefix});
       i != transient.end() && i->first.compare(0, override_prefix.size(), override_prefix) == 0;
       ++i) {
    auto rest = std::string_view{i->first}.substr(override_prefix.size());
    auto sep = rest.find(unit_separator);
    auto* s = i->second.value.if_string();
    if (sep == std::string_view::npos || s == nullptr)
      continue;
    out.push_back({std::string{rest.substr(0, sep)}, std::string{rest.substr(sep + 1)},
                   std::string{s->data(), s->size()}, i->second.secret});
  }
  return out;
}

void step_context::add_override(const std::string& component, const std::string& key,
                                std::string value, bool secret) {
  std::string slot{override_prefix};
  slot += component;
  slot += unit_separator;
  slot += key;
  set_transient(std::move(slot), boost::json::string{std::move(value)}, secret);
}

caf::expected<void> step_context::keep_secret(const std::string& key, const boost::json::value& v) {
  auto sealed = seal_value(v, keys_.get(), operation_id_);
  if (!sealed)
    return std::move(sealed.error());
  collect_secret_strings(v, revealed_);
  data_[key] = std::move(*sealed);
  return caf::unit;
}

caf::expected<std::optional<boost::json::value>> step_context::secret(const std::string& key) {
  auto* v = data_.if_contains(key);
  if (v == nullptr || !is_sealed(*v))
    return std::optional<boost::json::value>{};
  auto opened = open_value(*v, keys_.get(), operation_id_);
  if (!opened)
    return make_error(errc::secret_key, "secret '" + key + "' of operation " + operation_id_ + ": "
                                          + message_of(opened.error()));
  collect_secret_strings(*opened, revealed_);
  return std::optional<boost::json::value>{std::move(*opened)};
}

caf::expected<operation> step_context::open_secrets(operation op) {
  auto input = open_all(op.input, keys_.get(), op.id, &revealed_);
  if (!input)
    return make_error(errc::secret_key,
                      "the secret input of operation " + op.id + ": " + message_of(input.error()));
  auto data = open_all(std::make_shared<const boost::json::object>(std::move(op.data)), keys_.get(),
                       op.id, &revealed_);
  if (!data)
    return make_error(errc::secret_key,
                      "the secret data of operation " + op.id + ": " + message_of(data.error()));
  op.input = std::move(*input);
  op.data = **data;
  return op;
}

std::string step_context::start_child(std::string workflow, boost::json::object input,
                                      std::string key) {
  child_request req;
  req.workflow = std::move(workflow);
  req.input = std::move(input);
  req.key = key.empty() ? std::to_string(children_.size()) : std::move(key);
  if (!child_keys_.insert(req.key).second && children_fault_.empty())
    children_fault_ = "start_child: step '" + step_name_ + "' asked twice for child '" + req.key
                      + "' in one attempt";
  children_.push_back(std::move(req));
  return children_.back().key;
}

std::string step_context::start_child(std::string workflow, int32_t version,
                                      boost::json::object input, std::string key) {
  auto out = start_child(std::move(workflow), std::move(input), std::move(key));
  children_.back().version = version;
  return out;
}

time_point step_context::now() const {
  return clock_->now();
}

duration step_context::monotonic() const {
  return clock_->monotonic();
}

step_result step_result::of(step_context& ctx, outcome o, duration started) {
  step_result r;
  r.result = std::move(o);
  // A step that asks for two children in one slot would get one of them:
  // better that it fails, and says so.
  if (!ctx.children_fault().empty() && r.result.what == outcome::kind::done)
    r.result = fail(ctx.children_fault());
  r.took = ctx.monotonic() - started;
  r.finished_at = ctx.now();
  r.data = ctx.take_data();
  r.transient = ctx.take_transient();
  r.emitted = ctx.take_emitted();
  r.revealed = ctx.take_revealed();
  if (r.result.what == outcome::kind::done)
    r.children = ctx.take_children();
  return r;
}

} // namespace stepwise
