#include "http/prometheus.hpp"

#include <cmath>
#include <cstdio>

namespace stepwise::http {

namespace {

std::string number(double v) {
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v))
    return "NaN";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  else
    std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

} // namespace

std::string escape_label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (auto c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void prometheus_writer::family(std::string_view name, std::string_view type,
                               std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += help;
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void prometheus_writer::sample(std::string_view name, const labels& ls, double value) {
  out_ += name;
  if (!ls.empty()) {
    out_ += '{';
    bool first = true;
    for (auto& [k, v] : ls) {
      if (!first)
        out_ += ',';
      first = false;
      out_ += k;
      out_ += "=\"";
      out_ += escape_label(v);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += number(value);
  out_ += '\n';
}

void prometheus_writer::buckets(std::string_view name, const labels& ls,
                                const std::vector<double>& bounds,
                                const std::vector<uint64_t>& counts, double sum) {
  std::string bucket = std::string(name) + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    auto le = i < bounds.size() ? number(bounds[i]) : std::string("+Inf");
    auto with_le = ls;
    with_le.emplace_back("le", le);
    sample(bucket, with_le, static_cast<double>(cumulative));
  }
  sample(std::string(name) + "_sum", ls, sum);
  sample(std::string(name) + "_count", ls, static_cast<double>(cumulative));
}

} // namespace stepwise::http
