#include "actors/command_payload.hpp"

#include "engine/errc.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

std::string payload_text(const boost::json::object& obj, std::string_view key) {
  if (auto* v = obj.if_contains(key))
    if (auto* s = v->if_string())
      return std::string{*s};
  return {};
}

} // namespace

caf::expected<boost::json::value> command_payload(const command_request& req, const key_ring* keys,
                                                  std::string_view owner) {
  boost::json::object out;
  if (!req.from_step.empty())
    out["from_step"] = req.from_step;
  if (!req.step.empty())
    out["step"] = req.step;
  if (!req.reason.empty())
    out["reason"] = req.reason;
  if (req.input_patch) {
    auto sealed = seal_value(*req.input_patch, keys, owner);
    if (!sealed)
      return std::move(sealed.error());
    out["input_patch"] = std::move(*sealed);
  }
  // Parentheses: braces would make an array of the object.
  return boost::json::value(std::move(out));
}

caf::expected<command_request> stored_request(const stored_command& cmd, const key_ring* keys) {
  command_request req;
  req.kind = cmd.cmd;
  req.by = cmd.by;
  auto* obj = cmd.payload.if_object();
  if (!obj)
    return req; // stored before commands carried more than their kind
  req.from_step = payload_text(*obj, "from_step");
  req.step = payload_text(*obj, "step");
  req.reason = payload_text(*obj, "reason");
  if (auto* sealed = obj->if_contains("input_patch")) {
    auto patch = open_value(*sealed, keys, cmd.operation_id);
    if (!patch)
      return std::move(patch.error());
    if (!patch->is_object())
      return make_error(errc::invalid_argument, "stored command " + std::to_string(cmd.seq)
                                                  + ": its input patch is not an object");
    req.input_patch = std::move(patch->as_object());
  }
  return req;
}

} // namespace stepwise
