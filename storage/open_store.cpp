#include "storage/open_store.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/errc.hpp"
#include "storage/sqlite_store.hpp"

namespace stepwise {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string upper(std::string_view s) {
  std::string out{s};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

caf::expected<store_ptr> open_sqlite(const std::string& uri) {
  std::string_view rest{uri};
  rest.remove_prefix(std::string_view{"sqlite:"}.size());
  auto query = rest.find('?');
  std::string path{rest.substr(0, query)};
  sqlite_options opts;
  if (query != std::string_view::npos) {
    auto param = rest.substr(query + 1);
    constexpr std::string_view key = "synchronous=";
    auto value = starts_with(param, key) ? upper(param.substr(key.size())) : std::string{};
    if (value == "FULL")
      opts.synchronous = sqlite_sync::full;
    else if (value == "NORMAL")
      opts.synchronous = sqlite_sync::normal;
    else
      return make_error(errc::invalid_argument,
                        "invalid store URI '" + uri
                          + "': the only option is synchronous=FULL|NORMAL");
  }
  if (path.empty())
    return make_error(errc::invalid_argument, "invalid store URI '" + uri + "': the path is empty");
  auto st = sqlite_store::open(path, opts);
  if (!st)
    return std::move(st.error());
  return store_ptr{std::move(*st)};
}

struct scheme_table {
  std::mutex mtx;
  std::vector<std::pair<std::string, store_opener>> schemes;
};

scheme_table& schemes() {
  static scheme_table table;
  return table;
}

store_opener opener_of(const std::string& uri) {
  auto& t = schemes();
  std::lock_guard<std::mutex> guard{t.mtx};
  for (auto& [prefix, open] : t.schemes)
    if (starts_with(uri, prefix))
      return open;
  return nullptr;
}

} // namespace

void add_store_scheme(const std::string& prefix, store_opener open) {
  auto& t = schemes();
  std::lock_guard<std::mutex> guard{t.mtx};
  for (auto& known : t.schemes)
    if (known.first == prefix)
      return;
  t.schemes.emplace_back(prefix, open);
}

std::string redact_store_uri(const std::string& uri) {
  auto out = uri;
  // user:password@host
  auto scheme = out.find("://");
  if (scheme != std::string::npos) {
    auto at = out.find('@', scheme + 3);
    auto colon = out.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at)
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
  }
  // ?password=... in the query
  for (size_t pos = out.find("password="); pos != std::string::npos;
       pos = out.find("password=", pos + 1)) {
    auto start = pos + 9;
    auto end = out.find('&', start);
    out =
      out.substr(0, start) + "***" + (end == std::string::npos ? std::string() : out.substr(end));
  }
  return out;
}

caf::expected<store_ptr> open_store(const std::string& uri) {
  if (starts_with(uri, "sqlite:"))
    return open_sqlite(uri);
  if (auto open = opener_of(uri))
    return open(uri);
  if (starts_with(uri, "postgresql://") || starts_with(uri, "postgres://"))
    return make_error(errc::invalid_argument,
                      "cannot open '" + redact_store_uri(uri)
                        + "': this program was built without PostgreSQL (link the "
                          "stepwise-postgresql library and call stepwise::use_postgresql())");
  return make_error(errc::invalid_argument, "invalid store URI '" + redact_store_uri(uri)
                                              + "': expected sqlite:PATH or postgresql://...");
}

} // namespace stepwise
