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
              : op.workflow == "update_runtime"    ? std::string("updating")
              : op.workflow == "bind_runtime"      ? std::string("binding")
              : op.workflow == "unbind_runtime"    ? std::string("unbinding")
                                                   : std::string("provisioning");
  json::object ended;
  // A failed update replaced nothing (update_runtime deletes the old
  // infrastructure last): the instance works as before, and the same
  // update may be tried again.
  if (op.workflow == "update_runtime")
    ended = {{"instance_usable", true}, {"update_repeatable", true}};
  switch (op.state) {
    case op_state::succeeded:
      return {{"state", "succeeded"}, {"description", what + " succeeded"}};
    case op_state::failed:
      ended["state"] = "failed";
      ended["description"] =
        what + " failed: " + (op.error.empty() ? std::string("no detail") : op.error);
      return ended;
    case op_state::canceled:
      ended["state"] = "failed";
      ended["description"] = what + " was canceled";
      return ended;
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
