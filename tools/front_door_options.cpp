// The settings of stepwise serve's front doors: bearer tokens, TLS, the
// service broker, the key ring of secret values, and the deployment
// locations of the simulated cloud.

#include <algorithm>

#include "tools/option_spec.hpp"

namespace stepwise::tools {

namespace {

template <std::string serve_options::*Field>
std::optional<std::string> set_path(serve_options& o, const std::string& v) {
  if (v.empty())
    return std::string("must name a file");
  o.*Field = v;
  return std::nullopt;
}

template <bool serve_options::*Field>
std::optional<std::string> set_switch(serve_options& o, const std::string& v) {
  if (v == "true" || v == "1" || v == "yes")
    o.*Field = true;
  else if (v == "false" || v == "0" || v == "no")
    o.*Field = false;
  else
    return "must be true or false, not '" + v + "'";
  return std::nullopt;
}

std::optional<std::string> set_sim_locations(serve_options& o, const std::string& v) {
  auto items = split_list(v);
  if (!items)
    return "must be a comma-separated list of names, not '" + v + "'";
  std::vector<std::string> names;
  for (auto& name : *items)
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  o.sim_locations = std::move(names);
  return std::nullopt;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

} // namespace

std::optional<std::vector<std::string>> split_list(const std::string& v) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    auto comma = v.find(',', pos);
    auto item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty())
      return std::nullopt;
    out.push_back(std::move(item));
    if (comma == std::string::npos)
      return out;
    pos = comma + 1;
  }
}

const std::vector<option_spec>& front_door_specs() {
  static const std::vector<option_spec> specs{
    {"sim-locations", "STEPWISE_SIM_LOCATIONS", "NAME[,NAME...]",
     "simulated cloud: the deployment locations it serves (default default,dc1); "
     "any other name is an UnreachableDeploymentLocation",
     set_sim_locations},
    {"auth-tokens", "STEPWISE_AUTH_TOKENS", "FILE",
     "bearer tokens, one 'ROLE NAME TOKEN' a line: ROLE read (GET routes, event "
     "streams) or write (everything), TOKEN the token (16+ characters) or "
     "sha256:HEX of it; '#' comments; read again on SIGHUP. Without it the "
     "server listens on loopback addresses only",
     set_path<&serve_options::auth_tokens>},
    {"metrics-auth", "STEPWISE_METRICS_AUTH", "",
     "/metrics asks for a read token too (default: open, like /healthz and "
     "/readyz)",
     set_switch<&serve_options::metrics_auth>, true},
    {"insecure-no-auth", "STEPWISE_INSECURE_NO_AUTH", "",
     "serve without tokens on a non-loopback address: anyone who reaches the "
     "port may start and cancel operations",
     set_switch<&serve_options::insecure_no_auth>, true},
    {"tls-cert", "STEPWISE_TLS_CERT", "FILE",
     "serve HTTPS with this PEM certificate (chain); needs --tls-key",
     set_path<&serve_options::tls_cert>},
    {"tls-key", "STEPWISE_TLS_KEY", "FILE", "the PEM private key of --tls-cert",
     set_path<&serve_options::tls_key>},
    {"osb", "STEPWISE_OSB", "",
     "mount the Open Service Broker API (v2.17) on /v2/: provisions "
     "runtimes with provision_runtime; needs --osb-credentials",
     set_switch<&serve_options::osb>, true},
    {"osb-credentials", "STEPWISE_OSB_CREDENTIALS", "FILE",
     "the broker's basic-auth credentials: one line 'user:password' ('#' "
     "comments); read again on SIGHUP",
     set_path<&serve_options::osb_credentials>},
    {"secret-key-file", "STEPWISE_SECRET_KEY_FILE", "FILE",
     "the key ring that encrypts secret values (AES-256-GCM) before they are "
     "stored: one 'ID BASE64-KEY' a line (a key: openssl rand -base64 32), "
     "the first line encrypts, every line decrypts. Default: SQLite keeps "
     "one beside the database (STEM.keys, made on first start); PostgreSQL "
     "refuses to start without one",
     set_path<&serve_options::secret_key_file>},
    {"insecure-plaintext-secrets", "STEPWISE_INSECURE_PLAINTEXT_SECRETS", "",
     "store secret values without encryption (no key ring): anyone who can "
     "read the database or a backup of it reads them",
     set_switch<&serve_options::insecure_plaintext_secrets>, true},
  };
  return specs;
}

std::optional<std::string> check_front_doors(const serve_options& o) {
  if (o.tls_cert.empty() != o.tls_key.empty())
    return std::string("--tls-cert and --tls-key go together");
  if (o.osb && o.osb_credentials.empty())
    return std::string("--osb needs --osb-credentials FILE (one line 'user:password')");
  if (!o.osb && !o.osb_credentials.empty())
    return std::string("--osb-credentials is for the service broker: add --osb");
  if (o.metrics_auth && o.auth_tokens.empty())
    return std::string("--metrics-auth needs --auth-tokens FILE");
  if (o.insecure_plaintext_secrets && !o.secret_key_file.empty())
    return std::string("--secret-key-file and --insecure-plaintext-secrets exclude each other");
  return std::nullopt;
}

std::optional<std::string> check_exposure(const serve_options& o) {
  if (!o.auth_tokens.empty() || o.insecure_no_auth || is_loopback(o.host()))
    return std::nullopt;
  return "refusing to serve " + o.listen
         + " without authentication: anyone who reaches it could start and "
           "cancel operations. Add tokens: write a file with lines "
           "'write NAME TOKEN' (TOKEN from: openssl rand -hex 24; 'read NAME "
           "TOKEN' for read-only clients) and pass --auth-tokens FILE. Or "
           "listen on 127.0.0.1, or pass --insecure-no-auth to serve anyone.";
}

} // namespace stepwise::tools
