#include "engine/step_context.hpp"

#include "engine/clock.hpp"
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

time_point step_context::now() const {
  return clock_->now();
}

step_result step_result::of(step_context& ctx, outcome o,
                             std::chrono::steady_clock::time_point started) {
  step_result r;
  r.result = std::move(o);
  r.took = std::chrono::duration_cast<duration>(std::chrono::steady_clock::now() - started);
  r.finished_at = ctx.now();
  r.data = ctx.take_data();
  r.transient = ctx.take_transient();
  r.emitted = ctx.take_emitted();
  return r;
}

} // namespace stepwise
