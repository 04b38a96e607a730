#include "tests/http/task_client.hpp"

#include <catch2/catch.hpp>

namespace stepwise::test {

boost::json::object take_task(const http_fixture& fx, const std::string& id,
                              const std::string& queue) {
  for (int i = 0; i < 100; ++i) {
    auto r = fx.post(tasks_base + "/poll",
                     R"({"queue":")" + queue + R"(","worker":"w-1","max":10,"wait":"100ms"})");
    REQUIRE(r.status == 200);
    for (auto& t : r.json.at("tasks").as_array())
      if (t.at("operation_id") == id.c_str())
        return t.as_object();
  }
  FAIL("the task of " << id << " never came on queue " << queue);
  return {};
}

reply answer_task(const http_fixture& fx, const boost::json::object& t, const std::string& verb,
                  const std::string& body) {
  return fx.post(tasks_base + "/" + std::string(t.at("token").as_string()) + "/" + verb, body);
}

} // namespace stepwise::test
