#include "tools/api_client.hpp"

namespace stepwise::tools {

api_client::api_client(const client_flags& flags)
  : url_(flags.url), cli_(std::make_unique<httplib::Client>(flags.url)) {
  if (!flags.token.empty())
    cli_->set_bearer_token_auth(flags.token.c_str());
  if (!flags.ca_file.empty())
    cli_->set_ca_cert_path(flags.ca_file.c_str());
  cli_->enable_server_certificate_verification(!flags.insecure);
  cli_->set_keep_alive(true);
  cli_->set_tcp_nodelay(true);
  cli_->set_connection_timeout(5, 0);
  // Longer than the longest long poll and the stream's heartbeat.
  cli_->set_read_timeout(75, 0);
}

api_result api_client::finish(const httplib::Result& r) {
  api_result out;
  if (!r) {
    out.error = "cannot reach " + url_ + ": " + httplib::to_string(r.error());
    out.error += r.error() == httplib::Error::SSLServerVerification
                   ? " (the server's certificate is not trusted: pass --ca FILE, or "
                     "--insecure for a self-signed test server)"
                   : " (is 'stepwise serve' running? set --url or STEPWISE_URL)";
    return out;
  }
  out.status = r->status;
  if (!r->body.empty()) {
    boost::json::error_code ec;
    out.body = boost::json::parse(r->body, ec);
    if (ec)
      out.body = nullptr;
  }
  if (r->status >= 400) {
    auto err = out.body.is_object() ? out.body.as_object().if_contains("error") : nullptr;
    if (err != nullptr && err->is_object() && err->as_object().contains("code")
        && err->as_object().contains("message")) {
      auto& e = err->as_object();
      out.error = std::to_string(r->status) + " " + boost::json::value_to<std::string>(e.at("code"))
                  + ": " + boost::json::value_to<std::string>(e.at("message"));
    } else {
      out.error = "HTTP " + std::to_string(r->status);
    }
    if (r->status == 401)
      out.error += " (pass --token TOKEN or set STEPWISE_TOKEN)";
  }
  return out;
}

api_result api_client::get(const std::string& target) {
  return finish(cli_->Get(target));
}

api_result api_client::post(const std::string& target, const std::string& body) {
  return finish(cli_->Post(target, body, "application/json"));
}

api_result api_client::put(const std::string& target, const std::string& body) {
  return finish(cli_->Put(target, body, "application/json"));
}

api_result api_client::del(const std::string& target) {
  return finish(cli_->Delete(target));
}

api_result api_client::stream(const std::string& target, int64_t last_id,
                              const std::function<bool(const sse_event&)>& fn) {
  httplib::Headers headers{{"Accept", "text/event-stream"}};
  if (last_id > 0)
    headers.emplace("Last-Event-ID", std::to_string(last_id));
  std::string buffer;
  std::string error_body;
  int status = 0;
  sse_event current;
  bool stopped = false;
  auto on_response = [&](const httplib::Response& res) {
    status = res.status;
    return true;
  };
  auto on_data = [&](const char* data, size_t n) {
    if (status != 200) {
      error_body.append(data, n);
      return error_body.size() < 65536;
    }
    buffer.append(data, n);
    size_t pos;
    while ((pos = buffer.find('\n')) != std::string::npos) {
      auto line = buffer.substr(0, pos);
      buffer.erase(0, pos + 1);
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      if (line.empty()) {
        if (!current.data.empty() && !fn(current)) {
          stopped = true;
          return false;
        }
        current = sse_event{};
        continue;
      }
      if (line[0] == ':')
        continue;
      auto colon = line.find(':');
      auto field = line.substr(0, colon);
      auto value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
      if (!value.empty() && value[0] == ' ')
        value.erase(0, 1);
      if (field == "id")
        current.id = value;
      else if (field == "event")
        current.type = value;
      else if (field == "data")
        current.data += (current.data.empty() ? "" : "\n") + value;
    }
    return true;
  };
  auto r = cli_->Get(target, headers, on_response, on_data);
  if (stopped)
    return {};
  if (r && status != 200)
    r->body = std::move(error_body);
  return finish(r);
}

} // namespace stepwise::tools
