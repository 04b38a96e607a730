// Build-time tool: turns the console's files (web/) into a C++ source of
// string constants, so that the binary serves them with no file at run
// time. Usage: embed_assets OUTPUT.cpp FILE...

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const char* delimiter = "swasset";

std::string content_type(const std::string& name) {
  auto ends = [&](const char* ext) {
    std::string e(ext);
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html"))
    return "text/html; charset=utf-8";
  if (ends(".css"))
    return "text/css; charset=utf-8";
  if (ends(".js"))
    return "text/javascript; charset=utf-8";
  if (ends(".svg"))
    return "image/svg+xml";
  return "application/octet-stream";
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: embed_assets OUTPUT.cpp FILE...\n");
    return 2;
  }
  std::ostringstream out;
  out << "// Generated from web/ by web/embed_assets.cpp at build time.\n\n"
      << "#include \"http/console_assets.hpp\"\n\n"
      << "namespace stepwise::http {\n\nnamespace {\n\n";
  std::ostringstream table;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "embed_assets: cannot read %s\n", argv[i]);
      return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto body = text.str();
    if (body.find(std::string(")") + delimiter + "\"") != std::string::npos) {
      std::fprintf(stderr, "embed_assets: %s contains the raw string delimiter\n", argv[i]);
      return 1;
    }
    // ISO C++ compilers need only take string literals of 65536 bytes.
    if (body.size() >= 65536) {
      std::fprintf(stderr, "embed_assets: %s is over 64 KiB: split it\n", argv[i]);
      return 1;
    }
    out << "const char asset_" << i << "[] = R\"" << delimiter << "(" << body << ")" << delimiter
        << "\";\n\n";
    table << "    {\"" << base_name(argv[i]) << "\", \"" << content_type(argv[i]) << "\", {asset_"
          << i << ", sizeof(asset_" << i << ") - 1}},\n";
  }
  out << "} // namespace\n\n"
      << "const std::vector<console_asset>& console_assets() {\n"
      << "  static const std::vector<console_asset> all{\n"
      << table.str() << "  };\n  return all;\n}\n\n} // namespace stepwise::http\n";
  std::ofstream file(argv[1], std::ios::binary);
  file << out.str();
  return file ? 0 : 1;
}
