#include "http/osb_describe.hpp"

namespace stepwise::http {

namespace json = boost::json;

bool osb_matches(const operation& provisioning, const std::string& service_id,
                 const std::string& plan_id) {
  if (!provisioning.input)
    return false;
  auto broker = provisioning.input->if_contains("broker");
  auto b = broker != nullptr ? broker->if_object() : nullptr;
  if (b == nullptr)
    return false;
  auto is = [&](const char* key, const std::string& want) {
    auto v = b->if_contains(key);
    return v != nullptr && v->is_string() && v->get_string() == want;
  };
  return is("service_id", service_id) && is("plan_id", plan_id);
}

json::object osb_last_operation(const operation& op) {
  auto what = op.workflow == "deprovision_runtime" ? std::string("deprovisioning")
                                                   : std::string("provisioning");
  switch (op.state) {
    case op_state::succeeded:
      return {{"state", "succeeded"}, {"description", what + " succeeded"}};
    case op_state::failed:
      return {{"state", "failed"},
              {"description",
               what + " failed: " + (op.error.empty() ? std::string("no detail") : op.error)}};
    case op_state::canceled:
      return {{"state", "failed"}, {"description", what + " was canceled"}};
    default:
      break;
  }
  auto at = op.cursor();
  std::string desc = what + " " + std::string(to_string(op.state));
  if (at < op.steps.size()) {
    auto& s = op.steps[at];
    desc +=
      ": step " + std::to_string(at + 1) + " of " + std::to_string(op.steps.size()) + " (" + s.name;
    if (s.attempts > 1)
      desc += ", attempt " + std::to_string(s.attempts);
    desc += ")";
  }
  return {{"state", "in progress"}, {"description", desc}};
}

} // namespace stepwise::http
