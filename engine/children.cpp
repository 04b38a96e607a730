#include "engine/children.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace stepwise {

namespace {

constexpr std::string_view child_prefix = "child:";

std::string escape_step(const std::string& step) {
  std::string out;
  out.reserve(step.size());
  for (char c : step) {
    if (c == '%')
      out += "%25";
    else if (c == ':')
      out += "%3A";
    else
      out += c;
  }
  return out;
}

/// Reads an escaped step and its run (`%23RUN` at the end, when > 0).
std::optional<std::pair<std::string, int32_t>> unescape_step(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    auto code = s.substr(i + 1, 2);
    if (code == "25") {
      out += '%';
    } else if (code == "3A") {
      out += ':';
    } else if (code == "23") {
      auto digits = s.substr(i + 3);
      int32_t run = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), run);
      if (ec != std::errc{} || end != digits.data() + digits.size() || run <= 0)
        return std::nullopt;
      return std::make_pair(std::move(out), run);
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return std::make_pair(std::move(out), int32_t{0});
}

bool succeeded(const child_summary& c) {
  return c.state == op_state::succeeded;
}

std::string name_of(const child_summary& c) {
  return "child '" + c.key + "' of step '" + c.step + "' (" + c.id + ")";
}

} // namespace

std::string child_key(const std::string& parent, const std::string& step, const std::string& key,
                      int32_t run) {
  std::string out{child_prefix};
  out += parent;
  out += ':';
  out += escape_step(step);
  if (run > 0) {
    out += "%23";
    out += std::to_string(run);
  }
  out += ':';
  out += key;
  return out;
}

std::optional<child_slot> parse_child_key(std::string_view k) {
  if (k.substr(0, child_prefix.size()) != child_prefix)
    return std::nullopt;
  k.remove_prefix(child_prefix.size());
  // Operation ids hold no ':', escaped step names neither; the key may.
  auto p = k.find(':');
  if (p == std::string_view::npos)
    return std::nullopt;
  auto s = k.find(':', p + 1);
  if (s == std::string_view::npos)
    return std::nullopt;
  auto step = unescape_step(k.substr(p + 1, s - p - 1));
  if (!step)
    return std::nullopt;
  return child_slot{std::string{k.substr(0, p)}, std::move(step->first),
                    std::string{k.substr(s + 1)}, step->second};
}

std::optional<child_summary> summary_of(const operation& op) {
  auto slot = parse_child_key(op.idempotency_key);
  if (!slot || slot->parent != op.parent_id)
    return std::nullopt;
  return child_summary{
    op.id, std::move(slot->step), std::move(slot->key), slot->run, op.state, op.data, op.error};
}

std::vector<child_summary> watched_children(const children_wait& w, const operation& op,
                                            std::vector<child_summary> all) {
  auto current_run = [&](const std::string& step) {
    for (auto& rec : op.steps)
      if (rec.name == step)
        return rec.run;
    return int32_t{0};
  };
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const child_summary& c) {
                             return (!w.of_step.empty() && c.step != w.of_step)
                                    || c.run != current_run(c.step);
                           }),
            all.end());
  // By step, then key: the order a failure is reported in does not depend
  // on how the store listed them.
  std::sort(all.begin(), all.end(), [](const child_summary& x, const child_summary& y) {
    return std::tie(x.step, x.key) < std::tie(y.step, y.key);
  });
  return all;
}

children_verdict judge(const children_wait& w, const std::vector<child_summary>& watched) {
  children_verdict out;
  size_t ended = 0;
  for (auto& c : watched) {
    if (!is_terminal(c.state))
      continue;
    if (!succeeded(c) && !w.accept_failures) {
      out.what = children_verdict::kind::failed;
      out.error = name_of(c) + " " + std::string{to_string(c.state)}
                  + (c.error.empty() ? std::string{} : ": " + c.error);
      return out;
    }
    ++ended;
  }
  size_t required = watched.size();
  if (w.quorum == children_quorum::any)
    required = 1;
  else if (w.quorum == children_quorum::at_least)
    required = w.n;
  if (required > watched.size()) {
    out.what = children_verdict::kind::failed;
    out.error = "waits for " + std::to_string(required) + " children but "
                + (w.of_step.empty() ? std::string{"the operation"} : "step '" + w.of_step + "'")
                + " has " + std::to_string(watched.size());
    return out;
  }
  if (ended >= required) {
    out.what = children_verdict::kind::met;
    return out;
  }
  out.need = required - ended;
  return out;
}

boost::json::object children_results(const std::vector<child_summary>& watched) {
  boost::json::object out;
  for (auto& c : watched) {
    auto& of_step = out[c.step];
    if (!of_step.is_object())
      of_step = boost::json::object{};
    of_step.as_object()[c.key] = boost::json::object{
      {"id", c.id}, {"state", to_string(c.state)}, {"data", c.data}, {"error", c.error}};
  }
  return out;
}

boost::json::object children_counts(const std::vector<operation>& children) {
  std::map<op_state, int64_t> by_state;
  for (auto& c : children)
    by_state[c.state] += 1;
  boost::json::object out{{"total", static_cast<int64_t>(children.size())}};
  for (auto& kv : by_state)
    out[to_string(kv.first)] = kv.second;
  return out;
}

} // namespace stepwise
