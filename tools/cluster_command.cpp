// `stepwise cluster`: the servers sharing the store, as GET /api/v1/cluster
// lists them.

#include <cstdio>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

int cluster(const client_flags& flags) {
  api_client api{flags};
  auto r = api.get("/api/v1/cluster");
  if (flags.json || !r.ok())
    return print_json_or_error(r);
  table t({"SERVER", "URL", "VERSION", "OPERATIONS", "STARTED", "LEASE EXPIRES"});
  for (auto& s : r.body.at("servers").as_array()) {
    auto id = text_of(s, "id");
    if (s.at("self").as_bool())
      id += " (answered)";
    t.add({id, cell(text_of(s, "url")), cell(text_of(s, "version")), text_of(s, "operations"),
           text_of(s, "started_at"), text_of(s, "lease_expires_at")});
  }
  std::printf("%s", t.render().c_str());
  return 0;
}

} // namespace

void add_cluster(CLI::App& root, cli_run& run) {
  auto* cmd = root.add_subcommand(
    "cluster", "the servers sharing the store: where each answers, what it drives");
  cmd->callback([&run] { run.exit = cluster(run.flags); });
}

} // namespace stepwise::tools
