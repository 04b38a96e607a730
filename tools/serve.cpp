#include "tools/serve.hpp"

#include <csignal>
#include <cstdio>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include "workflows/bench.hpp"
#include "engine/duration_text.hpp"
#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "actors/real_clock.hpp"
#include "workflows/demo.hpp"
#include "workflows/infrastructure.hpp"
#include "storage/open_store.hpp"
#include "engine/sealed_rows.hpp"
#include "http/infrastructure_routes.hpp"
#include "http/osb.hpp"
#include "http/server.hpp"
#include "net/fd_limit.hpp"
#include "tools/drain.hpp"
#include "tools/key_file.hpp"
#include "outbox/outbox.hpp"
#include "tools/host.hpp"
#include "tools/make_driver.hpp"
#include "tools/stop_signals.hpp"
#include "storage/postgresql.hpp"

namespace stepwise::tools {

namespace {

std::string url_of(const std::string& host, int port, bool tls) {
  auto h = host == "0.0.0.0" || host == "::" ? std::string("127.0.0.1") : host;
  if (h.find(':') != std::string::npos)
    h = "[" + h + "]";
  return (tls ? "https://" : "http://") + h + ":" + std::to_string(port);
}

// Reads the token and credentials files again; a broken file keeps what
// is in use.
void reload_secrets(http::authenticator* auth, http::basic_credentials* broker) {
  if (auth == nullptr && broker == nullptr)
    log(log_level::info, "SIGHUP: no --auth-tokens or --osb-credentials file to read again");
  if (auth != nullptr) {
    if (auto n = auth->reload())
      log(log_level::info, "SIGHUP: read " + std::to_string(*n) + " tokens from " + auth->path());
    else
      log(log_level::error, "SIGHUP: kept the tokens in use: " + message_of(n.error()));
  }
  if (broker != nullptr) {
    if (auto ok = broker->reload())
      log(log_level::info, "SIGHUP: read the broker's credentials from " + broker->path());
    else
      log(log_level::error,
          "SIGHUP: kept the broker's credentials in use: " + message_of(ok.error()));
  }
}

// Every workflow the server offers: the built-in ones (add new
// definitions here; the infrastructure workflows come with a driver), then
// the host's.
caf::expected<registry> make_registry(const serve_options& opts, const serve_host& host,
                                      std::shared_ptr<infra::driver> drv, const host_context& ctx) {
  registry reg;
  if (drv) {
    workflows::infrastructure_deps deps;
    deps.driver = std::move(drv);
    deps.monitor = ctx.monitor;
    // As stored: deprovisioning opens the location's credentials itself.
    deps.read_operation = [st = ctx.store](const std::string& id) { return st->load(id); };
    deps.list_operations = [st = ctx.store](const list_filter& f) { return st->list(f); };
    if (auto ok = workflows::add_infrastructure_workflows(reg, std::move(deps)); !ok)
      return ok.error();
  }
  for (auto& set : host.builtin ? opts.workflow_sets : std::vector<std::string>{}) {
    if (set == "demo") {
      if (auto ok = reg.add(workflows::demo()); !ok)
        return ok.error();
    } else if (set == "bench") {
      for (auto& wf : workflows::bench_workflows().all())
        if (auto ok = reg.add(*wf); !ok)
          return ok.error();
    }
  }
  if (host.workflows)
    if (auto ok = host.workflows(reg, ctx); !ok)
      return ok.error();
  return reg;
}

} // namespace

int run_serve(const serve_options& opts, const serve_host& host) {
  use_postgresql();
  set_log_level(opts.level);
  if (auto refused = check_exposure(opts)) {
    log(log_level::error, *refused);
    return 2;
  }
  std::shared_ptr<http::authenticator> auth;
  if (!opts.auth_tokens.empty()) {
    auto opened = http::authenticator::open(opts.auth_tokens);
    if (!opened) {
      log(log_level::error, "cannot read the tokens: " + message_of(opened.error()));
      return 2;
    }
    auth = std::move(*opened);
  } else {
    log(log_level::info, "no --auth-tokens: every route is open to whoever reaches " + opts.listen);
  }
  std::shared_ptr<http::basic_credentials> broker;
  if (opts.osb) {
    auto opened = http::basic_credentials::open(opts.osb_credentials);
    if (!opened) {
      log(log_level::error, "cannot read the broker's credentials: " + message_of(opened.error()));
      return 2;
    }
    broker = std::move(*opened);
  }
  // Each connection is a descriptor; streams and idle clients hold theirs.
  auto fds = net::raise_fd_limit();
  if (fds > 0 && fds < opts.max_streams + 256)
    log(log_level::warn, "at most " + std::to_string(fds) + " open files (ulimit -Hn): too few for "
                           + std::to_string(opts.max_streams)
                           + " streams (--max-streams) and the other connections");
  auto signals = stop_signals::install();
  if (!signals) {
    log(log_level::error, "cannot handle signals: " + message_of(signals.error()));
    return 1;
  }
  // Declared in this order, the system ends before its configuration.
  std::unique_ptr<caf::actor_system_config> own_cfg;
  std::unique_ptr<caf::actor_system> own_sys;
  if (host.system == nullptr) {
    own_cfg = std::make_unique<caf::actor_system_config>();
    tune_actor_system(*own_cfg);
    if (opts.scheduler_threads > 0)
      own_cfg->set("scheduler.max-threads", opts.scheduler_threads);
    own_sys = std::make_unique<caf::actor_system>(*own_cfg);
  } else if (opts.scheduler_threads > 0) {
    log(log_level::warn, "--scheduler-threads: the host's actor system is already running");
  }
  auto& sys = host.system != nullptr ? *host.system : *own_sys;
  auto ecfg = opts.engine_config();
  if (!ecfg.clock)
    ecfg.clock = std::make_shared<real_clock>(sys);
  log(log_level::info, "opening store " + redact_uri(opts.store));
  auto st = open_store(opts.store);
  if (!st) {
    log(log_level::error, "cannot open the store: " + message_of(st.error()));
    return 1;
  }
  auto keys = keys_for(opts, true, [&]() -> caf::expected<bool> {
    auto* rows = (*st)->sealed();
    if (rows == nullptr)
      return false;
    auto found = rows->sealed_after("", 1);
    if (!found)
      return std::move(found.error());
    return !found->empty();
  });
  if (!keys) {
    log(log_level::error, "cannot start: " + message_of(keys.error()));
    return 2;
  }
  ecfg.secret_keys = *keys;
  // The broker opens binding credentials with the same keys (ecfg moves).
  auto broker_keys = *keys;
  auto later = std::make_shared<infra::delayed_calls>(sys, ecfg.clock);
  caf::expected<std::shared_ptr<infra::driver>> drv =
    make_error(errc::invalid_argument, "the host program serves its own workflows only");
  if (host.builtin)
    drv = make_driver(opts, ecfg.clock, later);
  watcher_actor monitor;
  if (drv) {
    infra::monitor_options mopts;
    mopts.max_polls_per_second = static_cast<int32_t>(opts.monitor_rate);
    monitor = infra::spawn_monitor(sys, *drv, ecfg.clock, mopts);
  }
  auto reg =
    make_registry(opts, host, drv ? *drv : nullptr, host_context{sys, ecfg.clock, *st, monitor});
  if (!reg) {
    log(log_level::error, "invalid workflow definition: " + message_of(reg.error()));
    return 1;
  }
  auto eng = engine::launch(sys, std::move(ecfg), std::move(*reg), *st);
  if (!eng) {
    // The store's error may quote the URI, password included.
    auto msg = message_of(eng.error());
    auto safe = redact_uri(opts.store);
    for (auto pos = msg.find(opts.store); pos != std::string::npos;
         pos = msg.find(opts.store, pos + safe.size()))
      msg.replace(pos, opts.store.size(), safe);
    log(log_level::error, "cannot start the engine: " + msg);
    return 1;
  }
  // The outbox starts after the engine (it subscribes to its commits) and
  // stops before it.
  std::unique_ptr<outbox::outbox> ob;
  if (!opts.sinks.empty()) {
    outbox::outbox_config ocfg;
    ocfg.sinks = opts.sinks;
    ocfg.timing.lease_ttl = std::chrono::seconds(opts.lease_ttl_s);
    ocfg.warn = [](const std::string& msg) { log(log_level::warn, msg); };
    auto started = outbox::outbox::start(sys, *eng, *st, std::move(ocfg));
    if (!started) {
      log(log_level::error, "cannot start the outbox: " + message_of(started.error()));
      eng->shutdown();
      return 1;
    }
    ob = std::move(*started);
    for (auto& s : opts.sinks)
      log(log_level::info, std::string("sink ") + s.name + ": " + to_string(s.kind) + " "
                             + outbox::describe_destination(s));
  }
  auto scfg = opts.server_config();
  if (ob)
    scfg.sinks = [o = ob.get()] { return o->status(); };
  scfg.auth = auth;
  if (log_enabled(log_level::debug))
    scfg.access_log = [](const http::server_request& req, const http::server_response& res) {
      log(log_level::debug, req.method + " " + req.path + " " + std::to_string(res.status));
    };
  http::server srv{sys, *eng, scfg};
  if (!drv) {
    log(log_level::warn, "the Infrastructure API is not mounted: " + message_of(drv.error()));
  } else {
    http::infrastructure_context ictx;
    ictx.eng = *eng;
    ictx.driver = std::move(*drv);
    ictx.max_json_depth = scfg.lim.max_json_depth;
    ictx.warn = [](const std::string& msg) { log(log_level::warn, msg); };
    ictx.auth = auth;
    http::add_infrastructure_routes(srv.routes(), std::move(ictx));
    log(log_level::info, std::string("Infrastructure API on /api/infrastructure (driver ")
                           + (opts.driver == "sim" ? "sim" : "HTTP") + ")");
    if (broker) {
      http::osb_context octx;
      octx.eng = *eng;
      octx.find_by_key = [st = *st](const std::string& key) { return st->find_by_key(key); };
      octx.credentials = broker;
      octx.keys = broker_keys;
      octx.max_json_depth = scfg.lim.max_json_depth;
      http::add_osb_routes(srv.routes(), std::move(octx));
      log(log_level::info, "Open Service Broker API on /v2/");
    }
  }
  if (broker && !drv) {
    log(log_level::error, "--osb needs the infrastructure workflows, which need a driver");
    eng->shutdown();
    return 1;
  }
  auto port = srv.bind();
  if (!port) {
    log(log_level::error, message_of(port.error()));
    if (ob)
      ob->stop();
    eng->shutdown();
    return 1;
  }
  srv.start();
  auto url = url_of(scfg.host, *port, srv.tls());
  // The URL names a loopback address to be usable; say when it is not the
  // only one served.
  auto every = scfg.host == "0.0.0.0" || scfg.host == "::" ? "every address, " : "";
  log(log_level::info,
      "stepwise listening on " + url + " (" + every + "store " + redact_uri(opts.store) + ", "
        + std::to_string(scfg.threads) + " HTTP workers, " + std::to_string(scfg.io_threads)
        + " I/O threads, "
        + (opts.retention > duration::zero() ? "retention " + format_duration_text(opts.retention)
                                             : std::string{"retention off"})
        + ")");
  auto cli_auth = std::string(auth ? " --token TOKEN" : "") + (srv.tls() ? " --ca CA.pem" : "");
  auto curl_auth = std::string(auth ? " -H 'Authorization: Bearer TOKEN'" : "")
                   + (srv.tls() ? " --cacert CA.pem" : "");
  log(log_level::info, "console: " + url + "/ui/");
  // The hint names a workflow this server has (a host's may lack demo).
  auto all = eng->workflows().all();
  auto demo = eng->workflows().find("demo") != nullptr;
  auto example = demo ? std::string("demo") : all.empty() ? std::string() : all.front()->name();
  auto input = demo ? std::string("{\"name\":\"you\"}") : std::string("{}");
  if (!example.empty())
    log(log_level::info, "try: stepwise ops start " + example + " --url " + url + cli_auth
                           + "   or: curl -X POST " + url + "/api/v1/operations" + curl_auth
                           + " -H 'Content-Type: application/json' -d '{\"workflow\":\"" + example
                           + "\",\"input\":" + input + "}'");
  if (host.ready)
    host.ready(served{*eng, eng->dispatcher(), eng->schedules(), url});
  int sig = 0;
  while ((sig = (*signals)->next()) == SIGHUP)
    reload_secrets(auth.get(), broker.get());
  log(log_level::info,
      std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", shutting down");
  // A second signal means "now": do not wait for the graceful path.
  (*signals)->stop_hard_on_next();
  // The server answers during the drain: 503 to starts and to /readyz.
  drain(*eng, std::chrono::seconds(opts.drain_timeout_s));
  srv.stop();
  if (ob)
    ob->stop();
  eng->shutdown();
  caf::anon_send_exit(monitor, caf::exit_reason::user_shutdown);
  log(log_level::info, "stopped");
  return 0;
}

} // namespace stepwise::tools

namespace stepwise {

int serve(const std::vector<std::string>& args, const serve_host& host) {
  auto opts = tools::parse_serve_options(args, tools::process_env());
  if (!opts) {
    std::fprintf(stderr, "error: %s\n", message_of(opts.error()).c_str());
    return 2;
  }
  if (opts->help) {
    std::printf("%s", tools::serve_help().c_str());
    return 0;
  }
  return tools::run_serve(*opts, host);
}

int serve(int argc, const char* const* argv, const serve_host& host) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    args.emplace_back(argv[i]);
  return serve(args, host);
}

} // namespace stepwise
