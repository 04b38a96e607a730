#include "workflows/infra_steps.hpp"

#include "infra/task_json.hpp"

namespace stepwise::workflows {

std::string string_at(const boost::json::object& obj, std::string_view key) {
  if (auto v = obj.if_contains(key); v != nullptr && v->is_string())
    return std::string(v->get_string());
  return {};
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
