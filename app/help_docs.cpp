#include "help_docs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/model/catalog.hpp>

#include "cli.hpp"

namespace qf::cli {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.pop_back();
    out.push_back(l);
  }
  return out;
}

std::size_t indentOf(const std::string& l) {
  const auto p = l.find_first_not_of(' ');
  return p == std::string::npos ? l.size() : p;
}

std::string trimmed(const std::string& l) {
  const auto b = l.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : l.substr(b);
}

bool isUsage(const std::string& l) {
  return l.rfind("usage:", 0) == 0 || l.rfind("Usage:", 0) == 0;
}

/// An entry line: two spaces, a term, then (when there is one) two or more spaces and its
/// description.
bool isEntry(const std::string& l) {
  return l.size() > 2 && indentOf(l) == 2;
}

std::pair<std::string, std::string> splitEntry(const std::string& l) {
  const std::string t = trimmed(l);
  const auto gap = t.find("  ");
  if (gap == std::string::npos) return {t, ""};
  return {t.substr(0, gap), trimmed(t.substr(gap))};
}

/// A heading: "options:", "commands:", "Arguments:".
bool isHeading(const std::string& l) {
  return !l.empty() && l[0] != ' ' && l.back() == ':' && l.size() <= 40 &&
         l.find(". ") == std::string::npos;
}

/// The usage block at the top of a help text: its lines without "usage: ", and where the
/// rest of the text starts.
std::pair<std::vector<std::string>, std::size_t> usageBlock(const std::vector<std::string>& ls) {
  std::vector<std::string> usage;
  std::size_t i = 0;
  while (i < ls.size() && ls[i].empty()) ++i;
  if (i < ls.size() && isUsage(ls[i])) {
    usage.push_back(trimmed(ls[i].substr(6)));
    for (++i; i < ls.size() && !ls[i].empty() && indentOf(ls[i]) >= 4; ++i) {
      usage.push_back(trimmed(ls[i]));
    }
  }
  return {usage, i};
}

/// Text for roff: backslashes and dashes escaped, a leading control character neutralised.
std::string esc(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out.push_back(c);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

/// A help text's body (after its usage block) as roff.
void bodyRoff(const std::vector<std::string>& ls, std::size_t from, std::ostream& out) {
  bool inEntry = false, needPara = false, inPre = false;
  auto endPre = [&] {
    if (inPre) {
      out << ".fi\n";
      needPara = true;
    }
    inPre = false;
  };
  for (std::size_t i = from; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    if (l.empty()) {
      endPre();
      needPara = true;
      continue;
    }
    // An entry, unless it is one word with no description (a CSV header quoted as an example).
    if (isEntry(l) && !(splitEntry(l).second.empty() && trimmed(l).find(' ') == std::string::npos &&
                        trimmed(l)[0] != '-')) {
      endPre();
      const auto [term, desc] = splitEntry(l);
      out << ".TP\n\\fB" << esc(term) << "\\fR\n";
      if (!desc.empty()) out << esc(desc) << "\n";
      inEntry = true;
      needPara = false;
      continue;
    }
    if (indentOf(l) > 2 && inEntry) {
      out << esc(trimmed(l)) << "\n";
      continue;
    }
    if (indentOf(l) >= 2) {  // an example block: kept as printed
      if (!inPre) out << ".PP\n.nf\n";
      inPre = true;
      out << esc(l) << "\n";
      continue;
    }
    endPre();
    if (isHeading(l)) {
      out << ".PP\n.B " << esc(l) << "\n";
      inEntry = false;
      needPara = false;
      continue;
    }
    if (inEntry || needPara) out << ".PP\n";
    inEntry = needPara = false;
    out << esc(l) << "\n";
  }
  endPre();
}

std::string run(const std::vector<std::string>& args, int& rc) {
  std::ostringstream out, err;
  rc = qf::cli::run(args, out, err);
  return out.str();
}

/// The names after "qfront CMD " in a command's usage lines: "<a|b|c>" alternatives, or one
/// lower-case word per line.
std::vector<std::string> subCommands(const std::string& command, const std::string& help) {
  std::vector<std::string> subs;
  const std::string lead = "qfront " + command + " ";
  for (const auto& u : usageBlock(lines(help)).first) {
    if (u.rfind(lead, 0) != 0) continue;
    std::string word = u.substr(lead.size());
    word = word.substr(0, word.find(' '));
    if (word.size() > 2 && word.front() == '<' && word.back() == '>') {
      for (const auto& alt : splitAt(word.substr(1, word.size() - 2), '|')) subs.push_back(alt);
    } else if (std::regex_match(word, std::regex("[a-z][a-z-]*"))) {
      subs.push_back(word);
    }
  }
  std::vector<std::string> unique;
  for (const auto& s : subs) {
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  }
  return unique;
}

std::string join(const std::vector<std::string>& v, const char* sep = " ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::vector<CommandHelp> qfrontHelpTexts() {
  int rc = 0;
  std::vector<CommandHelp> out{{"qfront", run({"--help"}, rc)}};
  const auto top = lines(out.front().text);
  bool inCommands = false;
  std::vector<std::string> commands;
  for (const auto& l : top) {
    if (l == "commands:") {
      inCommands = true;
    } else if (inCommands && isEntry(l)) {
      commands.push_back(splitEntry(l).first);
    } else if (inCommands && l.empty()) {
      inCommands = false;
    }
  }
  for (const auto& c : commands) {
    const std::string help = run({c, "--help"}, rc);
    out.push_back({"qfront " + c, help});
    for (const auto& sub : subCommands(c, help)) {
      const std::string subHelp = run({c, sub, "--help"}, rc);
      if (rc == kExitOk && subHelp != help && !subHelp.empty()) {
        out.push_back({"qfront " + c + " " + sub, subHelp});
      }
    }
  }
  return out;
}

std::vector<std::string> helpOptions(const std::string& helpText) {
  // Options are named in the usage lines and in the term column of entries, not in prose
  // (which quotes other tools' flags: "vllm bench serve --save-detailed").
  const auto ls = lines(helpText);
  const auto [usage, from] = usageBlock(ls);
  std::vector<std::string> places = usage;
  for (std::size_t i = from; i < ls.size(); ++i) {
    if (isEntry(ls[i])) places.push_back(splitEntry(ls[i]).first);
  }
  std::vector<std::string> out;
  const std::regex option("--[A-Za-z0-9][A-Za-z0-9-]*");
  for (const auto& p : places) {
    for (std::sregex_iterator it(p.begin(), p.end(), option), end; it != end; ++it) {
      const std::string o = it->str();
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
    }
  }
  return out;
}

std::string manPage(const ManPage& page) {
  std::ostringstream out;
  std::string upper = page.name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  out << ".\\\" -*- coding: UTF-8 -*-\n"
      << ".\\\" Made by qf_docgen from " << page.name << "'s --help texts; do not edit.\n"
      << ".TH " << upper << " 1 \"\" \"QuantFront " << page.version << "\" \"QuantFront Manual\"\n"
      << ".nh\n.ad l\n"
      << ".SH NAME\n"
      << esc(page.name) << " \\- " << esc(page.summary) << "\n";
  if (page.helps.empty()) return out.str();
  const auto top = lines(page.helps.front().text);
  auto [usage, from] = usageBlock(top);
  if (!usage.empty()) {
    out << ".SH SYNOPSIS\n.nf\n";
    for (auto u : usage) {
      // Qt's help names the program by the path it was started as; the page names it.
      const auto sp = u.find(' ');
      const std::string first = u.substr(0, sp);
      if (first.find('/') != std::string::npos && first.ends_with("/" + page.name)) {
        u = page.name + (sp == std::string::npos ? "" : u.substr(sp));
      }
      out << esc(u) << "\n";
    }
    out << ".fi\n";
  }
  out << ".SH DESCRIPTION\n";
  bodyRoff(top, from, out);
  if (page.helps.size() > 1) {
    out << ".SH COMMANDS\n";
    for (std::size_t h = 1; h < page.helps.size(); ++h) {
      out << ".SS \"" << esc(page.helps[h].command) << "\"\n";
      const auto ls = lines(page.helps[h].text);
      const auto [u, start] = usageBlock(ls);
      if (!u.empty()) {
        out << ".nf\n";
        for (const auto& line : u) out << "\\fB" << esc(line) << "\\fR\n";
        out << ".fi\n.PP\n";
      }
      bodyRoff(ls, start, out);
    }
  }
  if (!page.environment.empty()) {
    out << ".SH ENVIRONMENT\n";
    bodyRoff(lines(page.environment), 0, out);
  }
  if (!page.files.empty()) {
    out << ".SH FILES\n";
    bodyRoff(lines(page.files), 0, out);
  }
  if (!page.seeAlso.empty()) {
    out << ".SH SEE ALSO\n";
    for (std::size_t i = 0; i < page.seeAlso.size(); ++i) {
      const auto& s = page.seeAlso[i];
      const auto paren = s.find('(');
      out << ".BR " << esc(s.substr(0, paren)) << " " << s.substr(paren)
          << (i + 1 < page.seeAlso.size() ? "," : "") << "\n";
    }
  }
  return out.str();
}

std::string qfrontBashCompletion() {
  const auto helps = qfrontHelpTexts();
  std::vector<std::string> commands;
  std::map<std::string, std::vector<std::string>> subs;  // by command
  std::map<std::string, std::string> options;            // "model", "stats binomial"
  for (std::size_t i = 1; i < helps.size(); ++i) {
    const auto words = splitAt(helps[i].command, ' ');  // qfront CMD [SUB]
    const std::string key = words.size() == 3 ? words[1] + " " + words[2] : words[1];
    if (words.size() == 2) commands.push_back(words[1]);
    if (words.size() == 3) subs[words[1]].push_back(words[2]);
    options[key] = join(helpOptions(helps[i].text));
  }
  const Catalog& cat = Catalog::bundled();
  std::vector<std::string> models, gpus, schemes;
  for (const auto& m : cat.models()) models.push_back(m.id);
  for (const auto& g : cat.gpus()) gpus.push_back(g.id);
  for (const auto& s : cat.schemes()) schemes.push_back(s.id);

  std::ostringstream o;
  o << "# bash completion for qfront. Made by qf_docgen from qfront's --help texts and the\n"
       "# bundled catalog; do not edit.\n"
       "_qfront() {\n"
       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
       "  local cmd=${COMP_WORDS[1]} sub=${COMP_WORDS[2]} words=\"\" pre=\"\"\n"
       "  COMPREPLY=()\n"
       "  if (( COMP_CWORD == 1 )); then\n"
       "    COMPREPLY=($(compgen -W \""
    << join(commands) << " --help --version\" -- \"$cur\"))\n"
    << "    return\n  fi\n"
       "  case $prev in\n"
       "    --model) words=\""
    << join(models) << "\" ;;\n    --gpu) words=\"" << join(gpus)
    << "\" ;;\n"
       "    --scheme|--schemes|--linear|--moe|--lm-head|--baseline) words=\""
    << join(schemes)
    << "\" ;;\n"
       "    --format) words=\"table csv json\" ;;\n"
       "  esac\n"
       "  if [[ -n $words ]]; then\n"
       "    # Comma lists (--scheme bf16,w8a8-fp8): complete the last item.\n"
       "    if [[ $cur == *,* ]]; then pre=${cur%,*},; cur=${cur##*,}; fi\n"
       "    COMPREPLY=($(compgen -P \"$pre\" -W \"$words\" -- \"$cur\"))\n"
       "    # A model or GPU may also be a JSON file.\n"
       "    if [[ $prev == --model || $prev == --gpu ]]; then\n"
       "      COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
       "    fi\n"
       "    return\n"
       "  fi\n"
       "  if (( COMP_CWORD == 2 )); then\n"
       "    case $cmd in\n";
  for (const auto& [command, list] : subs) {
    o << "      " << command << ") COMPREPLY=($(compgen -W \"" << join(list)
      << "\" -- \"$cur\")); return ;;\n";
  }
  o << "    esac\n"
       "  fi\n"
       "  if [[ $cur == -* ]]; then\n"
       "    case \"$cmd $sub\" in\n";
  for (const auto& [key, opts] : options) {
    if (key.find(' ') != std::string::npos)
      o << "      \"" << key << "\") words=\"" << opts << "\" ;;\n";
  }
  for (const auto& [key, opts] : options) {
    if (key.find(' ') == std::string::npos)
      o << "      \"" << key << " \"*) words=\"" << opts << "\" ;;\n";
  }
  o << "    esac\n"
       "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
       "  fi\n"
       "  # Anything else is a file (complete -o default).\n"
       "}\n"
       "complete -o default -F _qfront qfront\n";
  return o.str();
}

}  // namespace qf::cli
