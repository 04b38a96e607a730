#include "tools/client_common.hpp"

#include <cstdio>
#include <cstdlib>

#include "tools/cli.hpp"

namespace stepwise::tools {

std::string text_of(const boost::json::value& obj, const char* key) {
  auto o = obj.if_object();
  if (o == nullptr)
    return "-";
  auto v = o->if_contains(key);
  if (v == nullptr || v->is_null())
    return "-";
  if (v->is_string())
    return std::string(v->get_string());
  return boost::json::serialize(*v);
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int print_json_or_error(const api_result& r) {
  if (!r.ok())
    return fail(r);
  std::printf("%s\n", boost::json::serialize(r.body).c_str());
  return 0;
}

int fail(const api_result& r) {
  std::fprintf(stderr, "error: %s\n", r.error.c_str());
  return 1;
}

int usage(const std::string& message) {
  std::fprintf(stderr, "error: %s\n\n%s", message.c_str(), client_help().c_str());
  return 2;
}

client_flags take_client_flags(std::vector<std::string>& args) {
  client_flags f;
  bool missing = false;
  auto env = std::getenv("STEPWISE_URL");
  f.url = take_flag(args, "url", env != nullptr ? env : "http://127.0.0.1:8080", missing);
  auto token = std::getenv("STEPWISE_TOKEN");
  f.token = take_flag(args, "token", token != nullptr ? token : "", missing);
  auto ca = std::getenv("STEPWISE_CA");
  f.ca_file = take_flag(args, "ca", ca != nullptr ? ca : "", missing);
  for (auto i = args.begin(); i != args.end();) {
    if (*i == "--json") {
      f.json = true;
      i = args.erase(i);
    } else if (*i == "--insecure") {
      f.insecure = true;
      i = args.erase(i);
    } else {
      ++i;
    }
  }
  return f;
}

std::string take_flag(std::vector<std::string>& args, const std::string& name,
                      const std::string& fallback, bool& missing) {
  auto flag = "--" + name;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag) {
      if (i + 1 >= args.size()) {
        missing = true;
        args.erase(args.begin() + static_cast<ptrdiff_t>(i));
        return fallback;
      }
      auto v = args[i + 1];
      args.erase(args.begin() + static_cast<ptrdiff_t>(i),
                 args.begin() + static_cast<ptrdiff_t>(i) + 2);
      return v;
    }
    if (args[i].rfind(flag + "=", 0) == 0) {
      auto v = args[i].substr(flag.size() + 1);
      args.erase(args.begin() + static_cast<ptrdiff_t>(i));
      return v;
    }
  }
  return fallback;
}

std::string client_help() {
  return "usage:\n"
         "  stepwise serve [FLAGS]                 run the server (see stepwise serve --help)\n"
         "  stepwise ops list [--state S] [--workflow W] [--limit N] [--cursor C]\n"
         "  stepwise ops show ID\n"
         "  stepwise ops start WORKFLOW [--input JSON] [--key IDEMPOTENCY_KEY]\n"
         "                     [--version N] [--deadline RFC3339]\n"
         "  stepwise ops cancel ID\n"
         "  stepwise ops retry ID                  failed: from the failed step; succeeded:\n"
         "                                         its incomplete steps again\n"
         "  stepwise ops pause ID                  stop at the next step boundary\n"
         "  stepwise ops resume ID                 go on from the paused step\n"
         "  stepwise ops signal ID NAME [--data JSON] [--id SIGNAL_ID]\n"
         "  stepwise events [--after SEQ] [--limit N] [--follow]\n"
         "  stepwise workflows [NAME]\n"
         "  stepwise sinks                         the outbox's sinks: cursor, lag, errors\n"
         "  stepwise secrets rotate [--batch N]    encrypt stored secret values again with\n"
         "                                         the first key (see stepwise secrets --help)\n"
         "\n"
         "client flags:\n"
         "  --url URL      server to talk to, http:// or https:// (env STEPWISE_URL;\n"
         "                 default http://127.0.0.1:8080)\n"
         "  --token T      bearer token of a server with --auth-tokens (env STEPWISE_TOKEN)\n"
         "  --ca FILE      https: the CA certificate that signs the server's (env STEPWISE_CA)\n"
         "  --insecure     https: accept any certificate (self-signed tests only)\n"
         "  --json         print the API's JSON instead of tables\n";
}

} // namespace stepwise::tools
