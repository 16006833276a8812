// The command shell: one option table gives a command its --help, its refusals and their
// exit status.
#include <catch2/catch.hpp>

#include <algorithm>

#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "help_docs.hpp"
#include "shell.hpp"

namespace {

using qf::cli::OptionSpec;

constexpr OptionSpec kOptions[] = {
    {"--gpu", "ID", "a GPU"},
    {"--tp", "N", "GPUs per replica\nsecond line", qf::cli::integerIn(1, 8)},
    {"--util", "U", "a fraction", qf::cli::numberIn(0, 1, true, "a number in (0, 1]")},
    {"--format", "table|json", "output format", qf::cli::oneOf("table|csv|json")},
    {"--gate", "G", "a gate (repeatable)", {}, true},
    {"--fast", "", "a flag"},
    {"--a-very-long-option-name", "VALUE", "its help"},
    {"--for-tests", "X", "not offered", {}, false, true},
};

qf::cli::CommandSpec command(std::size_t positionals = 0) {
  return {"qfront",
          "demo",
          "usage: qfront demo [options]\n",
          "A demonstration.\n",
          {kOptions},
          "Exit status: 0.\n",
          positionals};
}

struct Run {
  std::optional<qf::cli::ParsedOptions> parsed;
  int rc = -1;
  std::string out, err;
};

Run parse(const std::vector<std::string>& args, std::size_t positionals = 0) {
  std::ostringstream out, err;
  Run r;
  r.parsed = qf::cli::parseCommand(command(positionals), args, out, err, r.rc);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("the shell's help lists each option of the table with its help from column 25") {
  const std::string help = qf::cli::helpText(command());
  CHECK(help ==
        "usage: qfront demo [options]\n\nA demonstration.\n\noptions:\n"
        "  --gpu ID               a GPU\n"
        "  --tp N                 GPUs per replica\n"
        "                         second line\n"
        "  --util U               a fraction\n"
        "  --format table|json    output format\n"
        "  --gate G               a gate (repeatable)\n"
        "  --fast                 a flag\n"
        "  --a-very-long-option-name VALUE  its help\n"
        "\nExit status: 0.\n");
  CHECK(qf::cli::helpOptions(help) == std::vector<std::string>{"--gpu", "--tp", "--util",
                                                               "--format", "--gate", "--fast",
                                                               "--a-very-long-option-name"});
  const Run r = parse({"--gpu", "x", "--help"});
  CHECK_FALSE(r.parsed);
  CHECK(r.rc == qf::cli::kExitOk);
  CHECK(r.out == help);
}

TEST_CASE("the shell's help breaks a long line at a space, within 100 columns") {
  constexpr OptionSpec kLong[] = {
      {"--long", "X",
       "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
       "fifteen sixteen seventeen eighteen"}};
  const std::string help =
      qf::cli::helpText({"qfront", "demo", "usage: qfront demo\n", "", {kLong}, "", 0});
  CHECK(help.find("  --long X               one two three four five six seven eight nine ten "
                  "eleven twelve thirteen\n"
                  "                         fourteen fifteen sixteen seventeen eighteen\n") !=
        std::string::npos);
}

TEST_CASE("the shell takes values, repeated values, flags and positionals") {
  const Run r = parse({"--gpu", "h100", "--tp=4", "--gate", "a>=1", "--fast", "--gate=b<=2",
                       "--util", "0.5", "s.json"},
                      1);
  REQUIRE(r.parsed);
  CHECK(r.rc == 0);
  CHECK(r.parsed->value("--gpu") == "h100");
  CHECK(r.parsed->number("--tp") == 4.0);
  CHECK(r.parsed->number("--util") == 0.5);
  CHECK(r.parsed->values("--gate") == std::vector<std::string>{"a>=1", "b<=2"});
  CHECK(r.parsed->flag("--fast"));
  CHECK_FALSE(r.parsed->has("--format"));
  CHECK_FALSE(r.parsed->value("--format"));
  CHECK(r.parsed->positionals() == std::vector<std::string>{"s.json"});
  // A hidden option is taken but not offered.
  CHECK(parse({"--for-tests", "1"}).parsed->value("--for-tests") == "1");
  CHECK(qf::cli::helpText(command()).find("--for-tests") == std::string::npos);
}

TEST_CASE("the shell takes everything after -- as positionals") {
  const Run r = parse({"--gpu", "h100", "--", "-x.json", "--help"}, 2);
  REQUIRE(r.parsed);
  CHECK(r.parsed->value("--gpu") == "h100");
  CHECK(r.parsed->positionals() == std::vector<std::string>{"-x.json", "--help"});
  // An option after -- is a positional, not the option.
  const Run late = parse({"--", "--gpu", "a100"}, 2);
  REQUIRE(late.parsed);
  CHECK_FALSE(late.parsed->has("--gpu"));
  CHECK(late.parsed->positionals() == std::vector<std::string>{"--gpu", "a100"});
  // Positionals after -- still count against the command's number of them.
  const Run many = parse({"a.json", "--", "b.json"}, 1);
  CHECK_FALSE(many.parsed);
  CHECK(many.rc == qf::cli::kExitBadInput);
  CHECK(many.err.find("unknown argument 'b.json'") != std::string::npos);
}

TEST_CASE("the shell refuses with one line naming the option and exit status 2") {
  const auto refused = [](const Run& r, const std::string& text) {
    CHECK_FALSE(r.parsed);
    CHECK(r.rc == qf::cli::kExitBadInput);
    CHECK(r.err.find(text) != std::string::npos);
    CHECK(r.err.rfind("qfront: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  refused(parse({"--tp", "9"}), "field 'tp': expected an integer from 1 to 8, found '9'");
  refused(parse({"--tp", "2.5"}), "expected an integer from 1 to 8, found '2.5'");
  refused(parse({"--util", "0"}), "field 'util': expected a number in (0, 1], found '0'");
  refused(parse({"--util", "nan"}), "expected a number in (0, 1], found 'nan'");
  refused(parse({"--format", "xml"}), "expected table, csv or json, found 'xml'");
  refused(parse({"--gpu", "a", "--gpu", "b"}),
          "option --gpu is given more than once (2 times); give it once");
  refused(parse({"--gpu"}), "option --gpu needs a value");
  refused(parse({"--gpu", "--fast"}), "option --gpu needs a value");
  refused(parse({"--bogus"}), "unknown argument '--bogus' (see qfront demo --help)");
  refused(parse({"extra"}), "unknown argument 'extra'");
  refused(parse({"a.json", "b.json"}, 1), "unknown argument 'b.json'");
}

TEST_CASE("qfront serving and search take their options and help from their tables") {
  for (const std::string cmd : {"serving", "search"}) {
    CAPTURE(cmd);
    std::ostringstream out, err;
    CHECK(qf::cli::run({cmd, "--help"}, out, err) == qf::cli::kExitOk);
    const auto options = qf::cli::helpOptions(out.str());
    CHECK(std::find(options.begin(), options.end(), "--format") != options.end());
    CHECK(std::find(options.begin(), options.end(), "--mem-util") != options.end());
    CHECK(std::find(options.begin(), options.end(), "--input-len") != options.end());
    // Each option the help offers is one the command takes: none is unknown (given a value,
    // or alone when it is a flag).
    for (const auto& o : options) {
      CAPTURE(o);
      std::ostringstream o2, e2, o4, e4;
      qf::cli::run({cmd, o + "=x"}, o2, e2);
      qf::cli::run({cmd, o}, o4, e4);
      const bool valueTaken = e2.str().find("unknown argument") == std::string::npos;
      const bool flagTaken = e4.str().find("unknown argument") == std::string::npos;
      CHECK((valueTaken || flagTaken));
    }
    std::ostringstream o3, e3;
    CHECK(qf::cli::run({cmd, "--model", "llama-3.1-8b", "--mem-util", "1.5"}, o3, e3) ==
          qf::cli::kExitBadInput);
    CHECK(e3.str() ==
          "qfront: <cli>: field 'mem-util': expected a number in (0, 1], found '1.5'\n");
  }
}

TEST_CASE("core's references to the user's settings reach qfront's output as its flags") {
  std::ostringstream out, err;
  const int rc =
      qf::cli::run({"serving", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm", "--scheme", "bf16",
                    "--dp-attention", "--use-case", "rag", "--load", "1"},
                   out, err);
  CHECK(rc == qf::cli::kExitBadInput);
  CHECK(err.str().find("at least 2 GPUs per replica (--tp)") != std::string::npos);
  CHECK(err.str().find("{--") == std::string::npos);
  // Output that holds no reference passes whole: the catalog's JSON, written in many pieces,
  // still parses and lists every GPU.
  std::ostringstream json, jsonErr;
  REQUIRE(qf::cli::run({"catalog", "--format", "json"}, json, jsonErr) == qf::cli::kExitOk);
  const auto doc = nlohmann::json::parse(json.str());
  CHECK(doc["gpus"].size() >= 13);
}
