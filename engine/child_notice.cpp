#include "engine/child_notice.hpp"

namespace stepwise {

std::string child_ended_payload(const std::string& owner, const operation& child) {
  std::string out;
  out.reserve(owner.size() + child.parent_id.size() + child.idempotency_key.size() + 16);
  out += owner.empty() ? std::string_view{"-"} : std::string_view{owner};
  out += ' ';
  out += child.parent_id;
  out += ' ';
  out += to_string(child.state);
  out += ' ';
  out += child.idempotency_key;
  return out;
}

std::optional<child_ended_notice> parse_child_ended(std::string_view payload) {
  auto next = [&payload]() -> std::optional<std::string_view> {
    auto space = payload.find(' ');
    if (space == std::string_view::npos)
      return std::nullopt;
    auto word = payload.substr(0, space);
    payload.remove_prefix(space + 1);
    return word;
  };
  auto owner = next();
  auto parent = next();
  auto state = next();
  if (!owner || !parent || !state || parent->empty())
    return std::nullopt;
  auto st = parse_op_state(*state);
  if (!st || !is_terminal(*st))
    return std::nullopt;
  child_ended_notice n;
  if (*owner != "-")
    n.owner = std::string{*owner};
  n.parent = std::string{*parent};
  n.state = *st;
  n.child_key = std::string{payload};
  return n;
}

} // namespace stepwise
