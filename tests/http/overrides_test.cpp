// Secret overrides over HTTP, with the real SQLite store: the driver gets
// them, and they appear nowhere else: not in the store's files, the API's
// answers, the event log or the process's log.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <catch2/catch.hpp>

#include "actors/real_clock.hpp"
#include "infra/sim_driver.hpp"
#include "workflows/infrastructure.hpp"
#include "tests/http/fixture.hpp"

using namespace stepwise;
using namespace stepwise::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* token = "http-t0ken-s3cret";

/// Sends what the process writes to stderr (fd 2: C++ streams and stdio
/// alike) to a file until destroyed; `text` reads it.
class stderr_capture {
public:
  explicit stderr_capture(std::string path) : path_(std::move(path)) {
    saved_ = ::dup(2);
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    ::dup2(fd, 2);
    ::close(fd);
  }

  ~stderr_capture() {
    restore();
  }

  void restore() {
    if (saved_ < 0)
      return;
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }

  std::string text() const {
    std::ifstream in{path_};
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

private:
  std::string path_;
  int saved_ = -1;
};

/// Returns whether any file under `dir` holds `needle`.
bool any_file_holds(const std::string& dir, const std::string& needle) {
  for (auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file())
      continue;
    std::ifstream in{f.path(), std::ios::binary};
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (bytes.find(needle) != std::string::npos)
      return true;
  }
  return false;
}

/// provision_runtime on the simulated cloud with a step that adds a secret
/// override, and `leaky`, whose second step fails quoting it and emits an
/// event that does.
struct overrides_setup {
  std::shared_ptr<infra::sim_driver> drv;

  registry make(caf::actor_system& sys) {
    auto clk = std::make_shared<real_clock>(sys);
    infra::sim_config cfg;
    cfg.min_latency = cfg.max_latency = duration{0};
    drv = std::make_shared<infra::sim_driver>(cfg, clk);
    workflows::infrastructure_deps deps;
    deps.driver = drv;
    infra::monitor_options mopts;
    mopts.initial_backoff = 10ms;
    deps.monitor = infra::spawn_monitor(sys, drv, clk, mopts);
    deps.read_operation = [](const std::string&) -> caf::expected<std::optional<operation>> {
      return std::optional<operation>{};
    };
    deps.provisioning_steps.push_back({12, fetch()});
    registry reg;
    REQUIRE(workflows::add_infrastructure_workflows(reg, deps));
    auto leak = make_step("leak", [](step_context& ctx) {
      ctx.emit(event_type::infrastructure_task_completed, {{"echo", token}});
      return fail(std::string{"the service refused "} + token);
    });
    REQUIRE(reg.add(workflow("leaky", 1).step(1, fetch()).step(2, leak)));
    return reg;
  }

  static step_def fetch() {
    return make_step("fetch_token",
                     [](step_context& ctx) {
                       ctx.add_override("lms", "token", token, true);
                       return done();
                     })
      .producing_transient();
  }
};

} // namespace

TEST_CASE("a secret override reaches the driver and nothing else", "[http][overrides]") {
  overrides_setup setup;
  temp_dir logs;
  stderr_capture err{logs.path + "/stderr"};
  http_fixture fx{http_fixture::default_config(), nullptr,
                  [&](caf::actor_system& sys) { return setup.make(sys); }};
  auto prov = fx.start_op("provision_runtime",
                          R"({"name":"rt1","template":"outputs.url: http://rt1",)"
                          R"("template_type":"sim","deployment_location":{"name":"dc1"}})");
  auto leaky = fx.start_op("leaky");
  REQUIRE(fx.finish(prov) == "succeeded");
  REQUIRE(fx.finish(leaky) == "failed");
  // The definition says which steps set and use transient values.
  auto def = fx.get("/api/v1/workflows/provision_runtime");
  REQUIRE(def.status == 200);
  for (auto& st : def.json.at("steps").as_array()) {
    auto name = std::string(st.at("name").as_string());
    CHECK(st.at("produces_transient") == (name == "fetch_token"));
    CHECK(st.at("uses_transient") == (name == "create_infrastructure"));
  }
  // The driver got it (so the checks below could fail).
  auto shown = fx.get("/api/v1/operations/" + prov);
  REQUIRE(shown.status == 200);
  auto infra_id =
    std::string(shown.json.at("data").at("infrastructure").at("infrastructure_id").as_string());
  auto req = setup.drv->received_create(infra_id);
  REQUIRE(req);
  CHECK(req->properties.at("overrides/lms/token").at("value") == token);
  // The API's answers.
  auto failed = fx.get("/api/v1/operations/" + leaky);
  CHECK(failed.json.at("error") == "step 'leak': the service refused ***");
  std::string answers = shown.body + failed.body;
  answers += fx.get("/api/v1/operations?limit=100").body;
  auto evs = fx.get("/api/v1/events?limit=1000&after=0");
  REQUIRE(evs.status == 200);
  answers += evs.body;
  CHECK(evs.body.find(R"("echo":"***")") != std::string::npos);
  CHECK(answers.find(token) == std::string::npos);
  // The store's files (database, WAL), after the engine stopped.
  fx.stop();
  CHECK_FALSE(any_file_holds(fx.dir.path, token));
  // The process's log.
  err.restore();
  CHECK(err.text().find(token) == std::string::npos);
}
