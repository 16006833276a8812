#pragma once
/// Man pages and shell completion made from the programs' own --help texts, so the installed
/// documentation cannot drift from what `--help` prints (docs/architecture.md, "Installed
/// layout"). qf_docgen writes them at build time; the package installs them.
#include <string>
#include <vector>

namespace qf::cli {

/// One help text and the command line that prints it without --help ("qfront model").
struct CommandHelp {
  std::string command;
  std::string text;
};

/// qfront's top help, then each command's, then each sub-command's whose text differs from its
/// command's (qfront stats binomial), as `qfront ... --help` prints them.
std::vector<CommandHelp> qfrontHelpTexts();

/// The option names a help text offers (every "--name" it mentions, in order, once each).
std::vector<std::string> helpOptions(const std::string& helpText);

/// A man page (roff, section 1) from help texts: `helps.front()` is the program's own (its
/// usage lines the SYNOPSIS, the rest the DESCRIPTION), each later one a sub-section of
/// COMMANDS. `environment` and `files` become those sections when not empty; `seeAlso` names
/// other pages ("quantfront(1)").
struct ManPage {
  std::string name;     ///< the program, "qfront"
  std::string summary;  ///< the NAME line after "\-"
  std::string version;  ///< "0.1.0"
  std::vector<CommandHelp> helps;
  std::string environment;
  std::string files;
  std::vector<std::string> seeAlso;
};
std::string manPage(const ManPage& page);

/// Bash completion for qfront: its commands, each command's sub-commands and options, and the
/// catalog's model, GPU and scheme ids as values of --model, --gpu and the scheme options.
std::string qfrontBashCompletion();

}  // namespace qf::cli
