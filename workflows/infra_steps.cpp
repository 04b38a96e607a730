#include "workflows/infra_steps.hpp"

#include "engine/errc.hpp"
#include "infra/task_json.hpp"

namespace stepwise::workflows {

std::string string_at(const boost::json::object& obj, std::string_view key) {
  if (auto v = obj.if_contains(key); v != nullptr && v->is_string())
    return std::string(v->get_string());
  return {};
}

infra::result<operation> read_operation_at(const read_operation_fn& read, const step_context& ctx,
                                           const char* field) {
  auto id = string_at(ctx.input(), field);
  if (id.empty())
    return infra::error{infra::error_kind::infrastructure_error,
                        std::string("invalid input: \"") + field + "\" must be a non-empty string"};
  auto res = read(id);
  if (!res)
    return infra::error{infra::error_kind::temporary,
                        "cannot read operation " + id + ": " + message_of(res.error())};
  if (!*res)
    return infra::error{infra::error_kind::infrastructure_error, "no operation " + id};
  return std::move(**res);
}

infra::result<infra::deployment_location> provisioning_location(const read_operation_fn& read,
                                                                step_context& ctx) {
  auto op = read_operation_at(read, ctx, "provision_operation_id");
  if (auto err = std::get_if<infra::error>(&op))
    return *err;
  auto opened = ctx.open_secrets(std::move(std::get<operation>(op)));
  if (!opened)
    return infra::error{infra::error_kind::infrastructure_error, message_of(opened.error())};
  auto loc = infra::location_from_json(opened->input->if_contains("deployment_location"));
  if (!loc)
    return infra::error{infra::error_kind::infrastructure_error,
                        "the provisioning operation has no deployment_location"};
  return *loc;
}

outcome refused(std::string_view call, const infra::error& err) {
  auto msg = std::string(call) + ": " + std::string(to_string(err.kind)) + ": " + err.message;
  if (err.kind == infra::error_kind::temporary
      || err.kind == infra::error_kind::unreachable_location)
    return retry_after(duration{0}, std::move(msg));
  return fail(std::move(msg));
}

void create_once(infra::driver& drv, const async_call& call, const std::string& data_key,
                 create_spec spec) {
  auto& ctx = call.context();
  if (infra::ids_from_json(ctx.data().if_contains(data_key))) {
    call.complete(done());
    return;
  }
  infra::create_request req;
  req.template_text = std::move(spec.template_text);
  req.template_type = std::move(spec.template_type);
  req.system_properties["requestId"] =
    boost::json::object{{"value", ctx.idempotency_key()}, {"type", "string"}};
  req.system_properties["resourceName"] =
    boost::json::object{{"value", spec.resource_name}, {"type", "string"}};
  req.properties = std::move(spec.properties);
  req.location = std::move(spec.location);
  drv.create(
    req,
    [call, data_key](infra::result<infra::accepted> res) {
      if (auto err = std::get_if<infra::error>(&res)) {
        call.complete(refused("create", *err));
        return;
      }
      call.context().data()[data_key] = infra::ids_json(std::get<infra::accepted>(res));
      call.complete(done());
    },
    ctx.stop());
}

void remove_once(infra::driver& drv, const async_call& call, const std::string& ids_key,
                 const std::string& data_key, const infra::deployment_location& loc) {
  auto& ctx = call.context();
  auto ids = infra::ids_from_json(ctx.data().if_contains(ids_key));
  if (!ids || ctx.data().contains(data_key)) {
    call.complete(done());
    return;
  }
  drv.remove(
    ids->infrastructure_id, loc,
    [call, data_key](infra::result<infra::accepted> res) {
      if (auto err = std::get_if<infra::error>(&res)) {
        if (err->kind == infra::error_kind::not_found) {
          call.context().data()[data_key] = boost::json::object{{"already_gone", true}};
          call.complete(done());
        } else {
          call.complete(refused("delete", *err));
        }
        return;
      }
      call.context().data()[data_key] = infra::ids_json(std::get<infra::accepted>(res));
      call.complete(done());
    },
    ctx.stop());
}

} // namespace stepwise::workflows
