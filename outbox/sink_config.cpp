#include "outbox/sink_config.hpp"

#include <algorithm>
#include <cctype>

#include "engine/errc.hpp"

namespace stepwise::outbox {

namespace {

// Callers say where the spec came from (`--sink`, `STEPWISE_SINKS`, a
// config line). A spec without a valid name is never quoted: it may be a
// URL with credentials.
caf::error bad(const std::string& name, const std::string& what) {
  if (name.empty())
    return make_error(errc::invalid_argument, what);
  return make_error(errc::invalid_argument, "sink '" + name + "': " + what);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    auto next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos)
      return out;
    pos = next + 1;
  }
}

bool valid_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c))
           || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

bool to_count(const std::string& s, size_t lo, size_t hi, size_t& out) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return false;
  out = std::stoul(s);
  return out >= lo && out <= hi;
}

constexpr const char* common_keys[] = {"events", "workflows", "from", "timeout-ms"};
constexpr const char* webhook_keys[] = {"secret-file", "batch"};
constexpr const char* kafka_keys[] = {"security-protocol", "sasl-mechanism", "sasl-username",
                                      "sasl-password-file", "ca-file"};

template <size_t N>
bool one_of(const std::string& key, const char* const (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

bool known_key(sink_kind kind, const std::string& key) {
  return one_of(key, common_keys)
         || (kind == sink_kind::webhook ? one_of(key, webhook_keys) : one_of(key, kafka_keys));
}

caf::error set_filter(sink_config& c, const std::string& key, const std::string& value) {
  for (auto& item : split(value, '|')) {
    if (item.empty())
      return bad(c.name, key + " has an empty item");
    if (key == "workflows") {
      c.filter.workflows.push_back(item);
    } else if (auto t = parse_event_type(item)) {
      c.filter.types.push_back(*t);
    } else {
      return bad(c.name, "unknown event type '" + item + "' in events");
    }
  }
  return caf::error{};
}

caf::error set_option(sink_config& c, const std::string& key, const std::string& value) {
  size_t n = 0;
  if (key == "events" || key == "workflows")
    return set_filter(c, key, value);
  if (key == "from") {
    if (value != "start" && value != "end")
      return bad(c.name, "from must be start or end");
    c.start = value == "end" ? sink_start::end : sink_start::beginning;
  } else if (key == "timeout-ms") {
    if (!to_count(value, 1, 3'600'000, n))
      return bad(c.name, "timeout-ms must be 1 to 3600000");
    c.webhook.timeout = c.kafka.timeout = std::chrono::milliseconds(n);
  } else if (key == "batch") {
    if (!to_count(value, 1, 10'000, n))
      return bad(c.name, "batch must be 1 to 10000");
    c.webhook.batch = n;
  } else if (value.empty()) {
    return bad(c.name, key + " needs a value");
  } else if (key == "secret-file") {
    c.webhook.secret_file = value;
  } else if (key == "security-protocol") {
    c.kafka.security_protocol = value;
  } else if (key == "sasl-mechanism") {
    c.kafka.sasl_mechanism = value;
  } else if (key == "sasl-username") {
    c.kafka.sasl_username = value;
  } else if (key == "sasl-password-file") {
    c.kafka.sasl_password_file = value;
  } else if (key == "ca-file") {
    c.kafka.ca_file = value;
  }
  return caf::error{};
}

caf::error set_destination(sink_config& c, const std::string& dest) {
  if (c.kind == sink_kind::webhook) {
    if (dest.rfind("http://", 0) != 0 && dest.rfind("https://", 0) != 0)
      return bad(c.name, "webhook needs an http:// or https:// URL");
    c.webhook.url = dest;
    return caf::error{};
  }
  auto slash = dest.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == dest.size())
    return bad(c.name, "kafka needs BROKERS/TOPIC");
  c.kafka.brokers = dest.substr(0, slash);
  c.kafka.topic = dest.substr(slash + 1);
  return caf::error{};
}

} // namespace

bool sink_filter::matches(const event& e, const std::string& workflow) const {
  if (!types.empty() && std::find(types.begin(), types.end(), e.type) == types.end())
    return false;
  return workflows.empty()
         || std::find(workflows.begin(), workflows.end(), workflow) != workflows.end();
}

const char* to_string(sink_kind x) {
  return x == sink_kind::webhook ? "webhook" : "kafka";
}

caf::expected<sink_config> parse_sink(const std::string& spec) {
  sink_config c;
  auto eq = spec.find('=');
  if (eq == std::string::npos)
    return bad("", "expected NAME=webhook:URL or NAME=kafka:BROKERS/TOPIC, "
                   "options after commas");
  c.name = spec.substr(0, eq);
  if (!valid_name(c.name))
    return bad("", "a sink's NAME (before '=') is 1 to 64 of a-z, 0-9, '_' "
                   "and '-'");
  auto rest = spec.substr(eq + 1);
  auto colon = rest.find(':');
  auto kind = rest.substr(0, colon == std::string::npos ? 0 : colon);
  if (kind != "webhook" && kind != "kafka")
    return bad(c.name, "the kind must be webhook: or kafka:");
  c.kind = kind == "webhook" ? sink_kind::webhook : sink_kind::kafka;
  // A piece that is no known `key=value` continues the destination, so
  // that broker lists and URLs may hold commas.
  std::string dest;
  std::vector<std::pair<std::string, std::string>> options;
  for (auto& piece : split(rest.substr(colon + 1), ',')) {
    auto k = piece.find('=');
    auto key = piece.substr(0, k == std::string::npos ? 0 : k);
    auto other = c.kind == sink_kind::webhook ? sink_kind::kafka : sink_kind::webhook;
    if (k != std::string::npos && known_key(c.kind, key))
      options.emplace_back(key, piece.substr(k + 1));
    else if (k != std::string::npos && known_key(other, key))
      return bad(c.name, "option '" + key + "' is not one of a " + to_string(c.kind) + " sink");
    else if (options.empty() && (k == std::string::npos || c.kind == sink_kind::webhook))
      dest += (dest.empty() ? "" : ",") + piece;
    else if (k == std::string::npos)
      return bad(c.name, "a piece without '=' after the options (the "
                         "destination comes first)");
    else
      return bad(c.name, "unknown option '" + key + "'");
  }
  if (auto err = set_destination(c, dest))
    return err;
  for (auto& [key, value] : options)
    if (auto err = set_option(c, key, value))
      return err;
  return c;
}

std::string redact_url(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos)
    return "***";
  auto host_at = scheme + 3;
  auto path_at = url.find_first_of("/?#", host_at);
  auto authority =
    url.substr(host_at, path_at == std::string::npos ? std::string::npos : path_at - host_at);
  if (auto at = authority.rfind('@'); at != std::string::npos)
    authority = authority.substr(at + 1);
  auto out = url.substr(0, host_at) + authority;
  if (path_at != std::string::npos) {
    auto tail = url.substr(path_at);
    tail = tail.substr(0, tail.find('#'));
    if (auto q = tail.find('?'); q != std::string::npos)
      tail = tail.substr(0, q) + "?***";
    out += tail;
  }
  return out;
}

std::string describe_destination(const sink_config& cfg) {
  if (cfg.kind == sink_kind::webhook)
    return redact_url(cfg.webhook.url);
  return cfg.kafka.brokers + "/" + cfg.kafka.topic;
}

} // namespace stepwise::outbox
