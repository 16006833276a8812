// Text helpers: what reaches a title, a table or a report is printable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <quantfront/core/base/text.hpp>

TEST_CASE("printableText drops control characters and terminal escapes", "[base][text]") {
  using qf::printableText;
  CHECK(printableText("Llama 3 review") == "Llama 3 review");
  CHECK(printableText("line one\nline two\r\n") == "line one line two");
  CHECK(printableText("\x1b[31mred\x1b[0m title") == "red title");
  CHECK(printableText("bell\x07\x07"
                      "and\x7f del") == "bell and del");
  CHECK(printableText(std::string("nul\0byte", 8)) == "nul byte");
  CHECK(printableText("  \t\n ") == "");
  CHECK(printableText("Qualität — 8 GPUs") == "Qualität — 8 GPUs");  // UTF-8 kept
}

TEST_CASE("option references are worded by each front end", "[base][text]") {
  const std::string msg = "give " + qf::optionRef("scheme") + " or " + qf::optionRef("max-gpus");
  CHECK(msg == "give {--scheme} or {--max-gpus}");
  CHECK(qf::optionsAsFlags(msg) == "give --scheme or --max-gpus");
  const auto upper = [](std::string_view id) { return "<" + std::string(id) + ">"; };
  CHECK(qf::wordOptions(msg, upper) == "give <scheme> or <max-gpus>");
  // Text that only looks like a reference (a user's file name, an unclosed brace) is kept.
  CHECK(qf::optionsAsFlags("file {--a b}.json, {--}, {--x") == "file {--a b}.json, {--}, {--x");
  CHECK(qf::optionsAsFlags("{--{--tp}}") == "{----tp}");
  CHECK(qf::optionsAsFlags("") == "");
  CHECK(qf::optionsAsFlags("no references") == "no references");
}

TEST_CASE("core's messages name the user's settings as references, never as a front end's flag",
          "[base][text]") {
  namespace fs = std::filesystem;
  // Where a flag is another program's, written as that program takes it.
  const std::set<std::string> allowed = {
      "core/src/session/measure_process.cpp",  // qfront-measure's own command line
      "core/src/analysis/launch_command.cpp",  // the serving engines' launch flags
      "core/src/model/catalog.cpp",            // the engines' --quantization value
  };
  const std::regex charLiteral(R"('(\\.|[^'\\])')");
  const std::regex stringLiteral(R"("(\\.|[^"\\])*")");
  const std::regex flag(R"((^|[^{])--[a-z])");
  std::vector<std::string> found;
  const fs::path root(QF_SOURCE_DIR);
  for (const char* dir : {"core/src", "core/include"}) {
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = f.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string rel = fs::relative(f.path(), root).generic_string();
      if (allowed.count(rel) != 0) continue;
      std::ifstream in(f.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t") == line.find("//")) continue;  // a comment line
        const std::string code = std::regex_replace(line, charLiteral, "' '");
        for (auto it = std::sregex_iterator(code.begin(), code.end(), stringLiteral);
             it != std::sregex_iterator(); ++it) {
          if (std::regex_search(it->str(), flag)) found.push_back(rel + ":" + std::to_string(n));
        }
      }
    }
  }
  std::string where;
  for (const auto& f : found) where += " " + f;
  INFO("a flag written in a core message at:" << where);
  CHECK(found.empty());
  REQUIRE(fs::exists(root / "core/src/base/text.cpp"));
}
