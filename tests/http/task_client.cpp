#include "tests/http/task_client.hpp"

#include <map>
#include <optional>

#include <catch2/catch.hpp>

namespace stepwise::test {

boost::json::object take_task(const http_fixture& fx, const std::string& id,
                              const std::string& queue) {
  // A poll may hand out the task of another operation of the queue (it
  // became ready first): it is the worker's now and will not come again,
  // so it is kept for the take_task that asks for it (ids never repeat).
  static std::map<std::string, boost::json::object> taken_before;
  if (auto n = taken_before.extract(id))
    return std::move(n.mapped());
  for (int i = 0; i < 100; ++i) {
    auto r = fx.post(tasks_base + "/poll",
                     R"({"queue":")" + queue + R"(","worker":"w-1","max":10,"wait":"100ms"})");
    REQUIRE(r.status == 200);
    std::optional<boost::json::object> mine;
    for (auto& t : r.json.at("tasks").as_array()) {
      std::string of(t.at("operation_id").as_string());
      if (of == id)
        mine = t.as_object();
      else
        taken_before[of] = t.as_object();
    }
    if (mine)
      return *mine;
  }
  FAIL("the task of " << id << " never came on queue " << queue);
  return {};
}

reply answer_task(const http_fixture& fx, const boost::json::object& t, const std::string& verb,
                  const std::string& body) {
  return fx.post(tasks_base + "/" + std::string(t.at("token").as_string()) + "/" + verb, body);
}

} // namespace stepwise::test
