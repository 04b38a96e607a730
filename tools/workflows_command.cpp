// `stepwise workflows`: the workflows the server runs; `apply` defines one
// as data from a file, `delete` removes one.

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

int workflows(api_client& api, const std::string& name, bool json) {
  if (name.empty()) {
    auto r = api.get("/api/v1/workflows");
    if (json || !r.ok())
      return print_json_or_error(r);
    table t({"NAME", "VERSION", "SOURCE", "STEPS"});
    for (auto& wf : r.body.at("items").as_array()) {
      std::string steps;
      for (auto& s : wf.at("steps").as_array())
        steps += (steps.empty() ? "" : ", ") + text_of(s, "name");
      t.add({text_of(wf, "name"), text_of(wf, "version"), text_of(wf, "source"), cell(steps, 80)});
    }
    std::printf("%s", t.render().c_str());
    return 0;
  }
  auto r = api.get("/api/v1/workflows/" + url_encode(name));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s v%s (versions: %s; %s)\n\n", text_of(r.body, "name").c_str(),
              text_of(r.body, "version").c_str(), text_of(r.body, "versions").c_str(),
              text_of(r.body, "source") == "data" ? "defined as data" : "built in");
  table t({"STEP", "WEIGHT", "KIND", "QUEUE", "BEST EFFORT", "RETRY POLICY"});
  for (auto& s : r.body.at("steps").as_array())
    t.add({text_of(s, "name"), text_of(s, "weight"), text_of(s, "kind"), text_of(s, "queue"),
           text_of(s, "best_effort"), cell(text_of(s, "retry_policy"), 80)});
  std::printf("%s", t.render().c_str());
  return 0;
}

struct apply_args {
  std::string file;
  std::string name;
};

int apply(api_client& api, const apply_args& a, bool json) {
  std::ifstream in{a.file};
  if (!in)
    return usage_error("cannot read " + a.file);
  std::stringstream text;
  text << in.rdbuf();
  boost::json::error_code ec;
  auto def = boost::json::parse(text.str(), ec);
  if (ec || !def.is_object())
    return usage_error(a.file + " must hold a JSON object: the workflow's definition");
  auto name = a.name;
  // The file may name the workflow; the definition itself does not.
  if (auto* n = def.get_object().if_contains("name")) {
    if (name.empty() && n->is_string())
      name = std::string(n->get_string());
    def.get_object().erase("name");
  }
  if (name.empty())
    return usage_error("name the workflow: --name NAME, or \"name\" in " + a.file);
  auto r = api.put("/api/v1/workflows/" + url_encode(name), boost::json::serialize(def));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s workflow %s v%s (%zu steps)\n",
              r.status == 201 ? "defined" : "unchanged:", name.c_str(),
              text_of(r.body, "version").c_str(), r.body.at("steps").as_array().size());
  std::printf("start one: stepwise ops start %s --input '{...}'\n", name.c_str());
  return 0;
}

int remove(api_client& api, const std::string& name, bool json) {
  auto r = api.del("/api/v1/workflows/" + url_encode(name));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("deleted workflow %s (%s versions)\n", name.c_str(),
              text_of(r.body, "versions_deleted").c_str());
  return 0;
}

} // namespace

void add_workflows(CLI::App& root, cli_run& run) {
  auto* wf = root.add_subcommand(
    "workflows",
    "the workflows, or one with its steps; apply defines one as data, delete removes it");
  auto name = std::make_shared<std::string>();
  wf->add_option("NAME", *name, "a workflow");
  wf->callback([&run, name, wf] {
    if (wf->get_subcommands().empty()) {
      api_client api{run.flags};
      run.exit = workflows(api, *name, run.flags.json);
    }
  });
  auto* ap = wf->add_subcommand("apply", "define a workflow as data from a JSON file (a new "
                                         "version when it changed)");
  auto aa = std::make_shared<apply_args>();
  ap->add_option("-f,--file", aa->file, "the definition (PUT /api/v1/workflows/NAME's body)")
    ->required()
    ->type_name("FILE");
  ap->add_option("--name", aa->name, "the workflow's name (default: the file's \"name\")")
    ->type_name("NAME");
  ap->callback([&run, aa] {
    api_client api{run.flags};
    run.exit = apply(api, *aa, run.flags.json);
  });
  auto* del = wf->add_subcommand("delete", "delete a workflow defined as data (every version)");
  auto gone = std::make_shared<std::string>();
  del->add_option("NAME", *gone, "the workflow")->required();
  del->callback([&run, gone] {
    api_client api{run.flags};
    run.exit = remove(api, *gone, run.flags.json);
  });
}

} // namespace stepwise::tools
