#include "http/event_filter.hpp"

#include "engine/errc.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace stepwise::http {

static_assert(static_cast<unsigned>(event_type::steps_reset) < 32,
              "event_filter::types has a bit per event type");

namespace {

// Operations a filter keeps the answer for; past it, it reads them again.
constexpr size_t max_seen = 100000;

} // namespace

op_matcher::op_matcher(std::string workflow,
                       std::vector<std::pair<std::string, std::string>> labels)
  : workflow_(std::move(workflow)), labels_(std::move(labels)) {
  // nop
}

bool op_matcher::wanted(const operation& op) const {
  if (!workflow_.empty() && op.workflow != workflow_)
    return false;
  return std::all_of(labels_.begin(), labels_.end(), [&](const auto& kv) {
    auto i = op.labels.find(kv.first);
    return i != op.labels.end() && i->second == kv.second;
  });
}

std::optional<api_error> op_matcher::resolve(engine& eng, const std::vector<event>& items) {
  for (auto& e : items) {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (seen_.count(e.operation_id) > 0)
        continue;
    }
    auto op = eng.get(e.operation_id);
    bool yes = false;
    if (op)
      yes = wanted(*op);
    else if (code_of(op.error()) != errc::not_found)
      return from_engine(op.error()); // a removed operation is simply not followed
    std::lock_guard<std::mutex> guard{mtx_};
    if (seen_.size() >= max_seen)
      seen_.clear();
    seen_.emplace(e.operation_id, yes);
  }
  return std::nullopt;
}

bool op_matcher::matches(const std::string& id) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = seen_.find(id);
  return i != seen_.end() && i->second;
}

void event_filter::keep_wanted(std::vector<event>& items) const {
  if (types == ~uint32_t{0} && operation.empty() && !ops)
    return;
  items.erase(
    std::remove_if(items.begin(), items.end(), [this](const event& e) { return !wants(e); }),
    items.end());
}

std::optional<api_error> read_event_filter(const query& q, event_filter& out) {
  if (auto err = q.text("operation", out.operation))
    return err;
  std::string workflow;
  std::vector<std::pair<std::string, std::string>> labels;
  if (auto err = q.text("workflow", workflow))
    return err;
  if (auto err = q.labels("label", labels))
    return err;
  if (!workflow.empty() || !labels.empty())
    out.ops = std::make_shared<op_matcher>(std::move(workflow), std::move(labels));
  std::string text;
  if (auto err = q.text("type", text))
    return err;
  if (text.empty())
    return std::nullopt;
  uint32_t types = 0;
  std::string_view rest{text};
  while (true) {
    auto comma = rest.find(',');
    auto name = rest.substr(0, comma);
    auto t = parse_event_type(name);
    if (!t)
      return invalid_argument("query parameter 'type' must name event types separated by "
                              "commas (operation_succeeded,operation_failed), not '"
                              + std::string(name) + "'");
    types |= uint32_t{1} << static_cast<unsigned>(*t);
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  out.types = types;
  return std::nullopt;
}

} // namespace stepwise::http
