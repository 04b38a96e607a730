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

outcome create_once(infra::driver& drv, step_context& ctx, const std::string& data_key,
                    std::string template_text, std::string template_type,
                    const std::string& resource_name, boost::json::object properties,
                    infra::deployment_location loc) {
  if (infra::ids_from_json(ctx.data().if_contains(data_key)))
    return done();
  infra::create_request req;
  req.template_text = std::move(template_text);
  req.template_type = std::move(template_type);
  req.system_properties["requestId"]
    = boost::json::object{{"value", ctx.idempotency_key()}, {"type", "string"}};
  req.system_properties["resourceName"]
    = boost::json::object{{"value", resource_name}, {"type", "string"}};
  req.properties = std::move(properties);
  req.location = std::move(loc);
  auto res = drv.create(req);
  if (auto err = std::get_if<infra::error>(&res))
    return refused("create", *err);
  ctx.data()[data_key] = infra::ids_json(std::get<infra::accepted>(res));
  return done();
}

outcome remove_once(infra::driver& drv, step_context& ctx, const std::string& ids_key,
                    const std::string& data_key, const infra::deployment_location& loc) {
  auto ids = infra::ids_from_json(ctx.data().if_contains(ids_key));
  if (!ids || ctx.data().contains(data_key))
    return done();
  auto res = drv.remove(ids->infrastructure_id, loc);
  if (auto err = std::get_if<infra::error>(&res)) {
    if (err->kind == infra::error_kind::not_found) {
      ctx.data()[data_key] = boost::json::object{{"already_gone", true}};
      return done();
    }
    return refused("delete", *err);
  }
  ctx.data()[data_key] = infra::ids_json(std::get<infra::accepted>(res));
  return done();
}

} // namespace stepwise::workflows
