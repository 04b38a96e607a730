// `stepwise sinks`: the outbox's sinks as GET /api/v1/sinks lists them.

#include <cstdio>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

int sinks(const client_flags& flags) {
  api_client api{flags};
  auto r = api.get("/api/v1/sinks");
  if (flags.json || !r.ok())
    return print_json_or_error(r);
  table t({"NAME", "KIND", "DESTINATION", "CURSOR", "LAG", "DELIVERED", "FAILED", "LAST DELIVERY",
           "HOLDER", "LAST ERROR"});
  for (auto& s : r.body.at("items").as_array()) {
    auto holder = text_of(s, "holder");
    if (s.at("held_here").as_bool())
      holder += " (this server)";
    t.add({text_of(s, "name"), text_of(s, "kind"), cell(text_of(s, "destination")),
           text_of(s, "cursor"), text_of(s, "lag"), text_of(s, "delivered"), text_of(s, "failed"),
           text_of(s, "last_delivery_at"), holder, cell(text_of(s, "last_error"))});
  }
  std::printf("%s", t.empty() ? "no sinks (stepwise serve --sink ...)\n" : t.render().c_str());
  return 0;
}

} // namespace

void add_sinks(CLI::App& root, cli_run& run) {
  auto* cmd = root.add_subcommand("sinks", "the outbox's sinks: cursor, lag, errors");
  cmd->callback([&run] { run.exit = sinks(run.flags); });
}

} // namespace stepwise::tools
