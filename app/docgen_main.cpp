// qf_docgen: the man pages and bash completion the package installs, made at build time from
// the programs' own --help texts (help_docs.hpp), so they cannot drift from --help.
//   qf_docgen qfront OUT_DIR                   OUT_DIR/man1/qfront.1, OUT_DIR/qfront.bash
//   qf_docgen program NAME SUMMARY OUT_FILE -- PROGRAM [ARGS...]
//                                             a page from what `PROGRAM ARGS` prints
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <quantfront/core/base/version.hpp>

#include "help_docs.hpp"

namespace {

constexpr const char* kEnvironment =
    "  QUANTFRONT_DATA_DIR  the folder holding the bundled catalog/, calibration/, schema/ and\n"
    "                       sessions/ (default: PREFIX/share/quantfront beside the installed\n"
    "                       program; a build tree uses the copy compiled in)\n";

constexpr const char* kFiles =
    "  PREFIX/share/quantfront/catalog/  models, GPUs, schemes, use cases and the bundled\n"
    "                                    end-to-end constants\n"
    "  PREFIX/share/quantfront/calibration/published/  the published points the bundled\n"
    "                                    constants were fitted to and checked on\n"
    "  PREFIX/share/quantfront/sessions/ the example session the window opens\n"
    "  PREFIX/share/doc/quantfront/      README, the model, statistics and session format\n";

bool writeFile(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "qf_docgen: " << path.string() << ": cannot write\n";
    return false;
  }
  return true;
}

/// What `command` prints on stdout (stderr too, since Qt prints --help there on some builds).
bool capture(const std::string& command, std::string& text) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return false;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  return ::pclose(p) == 0;
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "qfront") {
    const std::filesystem::path dir(args[1]);
    qf::cli::ManPage page{
        "qfront",
        "the QuantFront command line: decode model, serving, deployment "
        "search, imports, frontier and statistics",
        qf::qfrontVersion(),
        qf::cli::qfrontHelpTexts(),
        kEnvironment + std::string("  QFRONT_LOCK_WAIT_S   seconds a session edit "
                                   "waits for another writer's lock (0 to 3600)\n"),
        kFiles,
        {"quantfront(1)", "qfront-measure(1)"}};
    return writeFile(dir / "man1" / "qfront.1", qf::cli::manPage(page)) &&
                   writeFile(dir / "qfront.bash", qf::cli::qfrontBashCompletion())
               ? 0
               : 1;
  }
  if (args.size() >= 6 && args[0] == "program" && args[4] == "--") {
    std::string command;
    for (std::size_t i = 5; i < args.size(); ++i)
      command += (i > 5 ? " " : "") + shellQuote(args[i]);
    // The window's --help needs no display; Qt is told so, as the headless export is.
    ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
    std::string help;
    if (!capture(command, help) || help.empty()) {
      std::cerr << "qf_docgen: " << command << ": printed no help\n";
      return 1;
    }
    const std::vector<std::string> seeAlso = args[1] == "qfront"
                                                 ? std::vector<std::string>{"quantfront(1)"}
                                                 : std::vector<std::string>{"qfront(1)"};
    qf::cli::ManPage page{args[1], args[2], qf::qfrontVersion(), {{args[1], help}}, kEnvironment,
                          kFiles,  seeAlso};
    return writeFile(args[3], qf::cli::manPage(page)) ? 0 : 1;
  }
  std::cerr << "usage: qf_docgen qfront OUT_DIR\n"
               "       qf_docgen program NAME SUMMARY OUT_FILE -- PROGRAM [ARGS...]\n";
  return 2;
}
