#include "infra/sim_template.hpp"

#include <charconv>
#include <string>

namespace stepwise::infra {

namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && ws(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && ws(s.back()))
    s.remove_suffix(1);
  return s;
}

error invalid(size_t line, std::string_view why) {
  return error{error_kind::invalid_template,
               "invalid template: line " + std::to_string(line) + ": " + std::string(why)};
}

constexpr std::string_view outputs_prefix = "outputs.";

} // namespace

result<sim_template> parse_sim_template(std::string_view text) {
  sim_template out;
  size_t line_no = 0;
  size_t entries = 0;
  while (!text.empty()) {
    ++line_no;
    auto eol = text.find('\n');
    auto line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty())
      continue;
    auto colon = line.find(':');
    if (colon == std::string_view::npos)
      return invalid(line_no, "expected `key: value`");
    auto key = trim(line.substr(0, colon));
    auto value = trim(line.substr(colon + 1));
    if (key.empty())
      return invalid(line_no, "empty key");
    ++entries;
    if (key.substr(0, outputs_prefix.size()) == outputs_prefix) {
      auto name = key.substr(outputs_prefix.size());
      if (name.empty())
        return invalid(line_no, "empty output name");
      out.outputs[name] = value;
    } else if (key == "latency_ms") {
      int64_t ms = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc{} || end != value.data() + value.size() || ms < 0)
        return invalid(line_no, "latency_ms is not a non-negative integer");
      out.latency = std::chrono::milliseconds(ms);
    } else if (key == "fail") {
      auto space = value.find(' ');
      auto code = parse_failure_code(value.substr(0, space));
      if (!code)
        return invalid(line_no, "unknown failure code");
      auto desc =
        space == std::string_view::npos ? std::string_view{} : trim(value.substr(space + 1));
      out.fail = failure_details{*code, desc.empty() ? "simulated failure" : std::string(desc)};
    }
  }
  if (entries == 0)
    return error{error_kind::invalid_template, "invalid template: it is empty"};
  return out;
}

} // namespace stepwise::infra
