// Man pages and completion made from qfront's own --help texts: every command and option
// documented, prose flags of other tools left out, roff escaped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>

#include "help_docs.hpp"

#include <quantfront/core/model/catalog.hpp>

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
/// `word` in a word list of the script: between spaces or quotes.
bool hasWord(const std::string& text, const std::string& word) {
  for (const char* before : {" ", "\""}) {
    for (const char* after : {" ", "\""}) {
      if (has(text, before + word + after)) return true;
    }
  }
  return false;
}
std::string roffOption(const std::string& option) {  // "--gpu" as the page writes it
  std::string out;
  for (const char c : option) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}
}  // namespace

TEST_CASE("qfront's help texts: the top one, every command, and sub-commands with their own") {
  const auto helps = qf::cli::qfrontHelpTexts();
  REQUIRE(helps.size() > 10);
  CHECK(helps.front().command == "qfront");
  std::vector<std::string> commands;
  for (const auto& h : helps) commands.push_back(h.command);
  for (const char* c :
       {"qfront model", "qfront catalog", "qfront frontier", "qfront import", "qfront stats",
        "qfront calibrate", "qfront merge", "qfront serving", "qfront search", "qfront session",
        "qfront stats binomial", "qfront stats kl"}) {
    CHECK(std::find(commands.begin(), commands.end(), c) != commands.end());
  }
  // session's sub-commands print session's own help: not repeated.
  CHECK(std::find(commands.begin(), commands.end(), "qfront session list") == commands.end());
}

TEST_CASE("helpOptions takes options from usage lines and entry terms, not from prose") {
  const std::string help =
      "usage: tool run --alpha A [--beta]\n"
      "\n"
      "Reads what `vllm bench serve --save-detailed` writes.\n"
      "  --gamma G      the gamma; see --not-an-option in prose\n"
      "                 continued, mentioning --nor-this\n";
  CHECK(qf::cli::helpOptions(help) == std::vector<std::string>{"--alpha", "--beta", "--gamma"});
}

TEST_CASE("qfront(1) has a section per command and every option each --help offers") {
  const auto helps = qf::cli::qfrontHelpTexts();
  const std::string page =
      qf::cli::manPage({"qfront", "the command line", "9.9.9", helps, "", "", {"quantfront(1)"}});
  CHECK(has(page, ".TH QFRONT 1 \"\" \"QuantFront 9.9.9\""));
  CHECK(has(page, ".SH SYNOPSIS"));
  CHECK(has(page, ".BR quantfront (1)"));
  for (std::size_t i = 1; i < helps.size(); ++i) {
    CAPTURE(helps[i].command);
    CHECK(has(page, ".SS \"" + helps[i].command + "\""));
    for (const auto& o : qf::cli::helpOptions(helps[i].text)) {
      CAPTURE(o);
      CHECK(has(page, roffOption(o)));
    }
  }
}

TEST_CASE("manPage escapes roff: backslashes, dashes and a line that starts with a dot") {
  const std::string page =
      qf::cli::manPage({"tool",
                        "a tool",
                        "1.0",
                        {{"tool", "usage: tool [-x]\n\n.hidden line\nC:\\path\n"}},
                        "",
                        "",
                        {}});
  CHECK(has(page, "\\&.hidden line"));
  CHECK(has(page, "C:\\epath"));
  CHECK(has(page, "tool [\\-x]"));
  CHECK_FALSE(has(page, "\n.hidden"));
}

TEST_CASE("bash completion offers every command, the catalog's ids and each command's options") {
  const std::string script = qf::cli::qfrontBashCompletion();
  CHECK(has(script, "complete -o default -F _qfront qfront"));
  for (const auto& g : qf::Catalog::bundled().gpus()) CHECK(hasWord(script, g.id));
  for (const auto& s : qf::Catalog::bundled().schemes()) CHECK(hasWord(script, s.id));
  for (const auto& m : qf::Catalog::bundled().models()) CHECK(hasWord(script, m.id));
  CHECK_FALSE(hasWord(script, "no-such-gpu"));
  CHECK(has(script, "\"stats binomial\") words=\"--p --n --format\""));
  CHECK(has(script, "stats) COMPREPLY=($(compgen -W \"binomial power diff paired serving kl\""));
}
