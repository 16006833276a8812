#include "shell.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include <quantfront/core/base/error.hpp>
#include <quantfront/core/base/numbers.hpp>

#include "cli.hpp"

namespace qf::cli {
namespace {

/// The column an option's help starts at.
constexpr std::size_t kHelpColumn = 25;

/// The widest a help line runs.
constexpr std::size_t kHelpWidth = 100;

/// `text`'s lines ('\n'), each longer than `width` broken at its last space that fits.
std::vector<std::string> wrapped(std::string_view text, std::size_t width) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    while (line.size() > width) {
      const auto space = line.rfind(' ', width);
      if (space == std::string_view::npos || space == 0) break;
      out.emplace_back(line.substr(0, space));
      line = line.substr(space + 1);
    }
    out.emplace_back(line);
  }
  return out;
}

/// One line naming the option, as every refusal of the command line reads.
int refuse(const CommandSpec& command, std::ostream& err, const std::string& field,
           const std::string& message) {
  err << command.program << ": " << Error{kCommandLine, "", field, message}.str() << "\n";
  return kExitBadInput;
}

std::string withoutDashes(std::string_view name) {
  return std::string(name.substr(name.find_first_not_of('-')));
}

/// "a, b or c" from "a|b|c".
std::string wordList(std::string_view words) {
  std::vector<std::string> w;
  for (std::size_t at = 0; at <= words.size();) {
    const auto bar = words.find('|', at);
    const auto end = bar == std::string_view::npos ? words.size() : bar;
    w.emplace_back(words.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i > 0) out += i + 1 == w.size() ? " or " : ", ";
    out += w[i];
  }
  return out;
}

std::string expectedText(const ValueCheck& c) {
  if (!c.expected.empty()) return std::string(c.expected);
  switch (c.kind) {
    case ValueCheck::Kind::Integer:
      return "an integer from " + fixedDecimals(c.lo, 0) + " to " + fixedDecimals(c.hi, 0);
    case ValueCheck::Kind::Number:
      return std::string("a number in ") + (c.loOpen ? "(" : "[") + sigFigs(c.lo, 6) + ", " +
             sigFigs(c.hi, 6) + "]";
    case ValueCheck::Kind::Choice:
      return wordList(c.words);
    case ValueCheck::Kind::Any:
      break;
  }
  return "a value";
}

bool passes(const ValueCheck& c, const std::string& v) {
  switch (c.kind) {
    case ValueCheck::Kind::Any:
      return true;
    case ValueCheck::Kind::Integer: {
      const auto x = parseInt(v);
      return x && static_cast<double>(*x) >= c.lo && static_cast<double>(*x) <= c.hi;
    }
    case ValueCheck::Kind::Number: {
      const auto x = parseNumber(v);
      return x && (c.loOpen ? *x > c.lo : *x >= c.lo) && *x <= c.hi;
    }
    case ValueCheck::Kind::Choice:
      for (std::size_t at = 0; at <= c.words.size();) {
        const auto bar = c.words.find('|', at);
        const auto end = bar == std::string_view::npos ? c.words.size() : bar;
        if (c.words.substr(at, end - at) == v) return true;
        at = end + 1;
      }
      return false;
  }
  return false;
}

}  // namespace

std::string repeatedOption(const std::string& name, std::size_t times) {
  return "option " + name + " is given more than once (" + std::to_string(times) +
         " times); give it once";
}

std::string helpText(const CommandSpec& command) {
  std::ostringstream out;
  // Each part ends in one newline, a blank line between parts.
  const auto trimmed = [](std::string_view t) {
    while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
    return t;
  };
  out << trimmed(command.usage) << "\n";
  if (!trimmed(command.about).empty()) out << "\n" << trimmed(command.about) << "\n";
  // A command without options (only positionals) has no options list.
  const bool anyShown = std::any_of(command.options.begin(), command.options.end(), [](auto g) {
    return std::any_of(g.begin(), g.end(), [](const OptionSpec& o) { return !o.hidden; });
  });
  if (anyShown) out << "\noptions:\n";
  for (const auto& group : command.options) {
    for (const OptionSpec& o : group) {
      if (o.hidden) continue;
      std::string term = "  " + std::string(o.name);
      if (!o.flag()) term += " " + std::string(o.value);
      const auto lines = wrapped(o.help, kHelpWidth - kHelpColumn);
      out << term;
      if (!lines.empty()) {
        out << std::string(term.size() + 2 <= kHelpColumn ? kHelpColumn - term.size() : 2, ' ')
            << lines.front();
      }
      out << "\n";
      for (std::size_t i = 1; i < lines.size(); ++i) {
        out << std::string(kHelpColumn, ' ') << lines[i] << "\n";
      }
    }
  }
  if (!command.after.empty()) out << "\n" << command.after;
  return out.str();
}

std::optional<std::string> ParsedOptions::value(std::string_view name) const {
  const auto it = m_values.find(name);
  if (it == m_values.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> ParsedOptions::values(std::string_view name) const {
  const auto it = m_values.find(name);
  return it == m_values.end() ? std::vector<std::string>() : it->second;
}

bool ParsedOptions::flag(std::string_view name) const {
  return m_values.count(name) != 0;
}

std::optional<double> ParsedOptions::number(std::string_view name) const {
  const auto v = value(name);
  return v ? parseNumber(*v) : std::nullopt;
}

std::optional<ParsedOptions> parseCommand(const CommandSpec& command,
                                          const std::vector<std::string>& args, std::ostream& out,
                                          std::ostream& err, int& rc) {
  // Everything after "--" is a positional, whatever it looks like (a file named "-x.json").
  const auto dashes = std::find(args.begin(), args.end(), std::string("--"));
  Args a(std::vector<std::string>(args.begin(), dashes));
  std::vector<std::string> afterDashes;
  if (dashes != args.end()) afterDashes.assign(dashes + 1, args.end());
  if (a.help()) {
    out << helpText(command);
    rc = kExitOk;
    return std::nullopt;
  }
  ParsedOptions parsed;
  for (const auto& group : command.options) {
    for (const OptionSpec& o : group) {
      const std::string name(o.name);
      if (o.flag()) {
        if (a.takeFlag(name)) parsed.m_values[name];
        continue;
      }
      bool missing = false;
      std::vector<std::string> given = a.take(name, missing);
      const std::string field = withoutDashes(o.name);
      if (!o.repeatable && given.size() + (missing ? 1 : 0) > 1) {
        rc = refuse(command, err, field, repeatedOption(name, given.size() + (missing ? 1 : 0)));
        return std::nullopt;
      }
      if (missing) {
        rc = refuse(command, err, field,
                    "option " + name + " needs a value (a value that starts with '-' is given as " +
                        name + "=VALUE)");
        return std::nullopt;
      }
      for (const auto& v : given) {
        if (!passes(o.check, v)) {
          rc = refuse(command, err, field,
                      "expected " + expectedText(o.check) + ", found '" + v + "'");
          return std::nullopt;
        }
      }
      if (!given.empty()) parsed.m_values[name] = std::move(given);
    }
  }
  for (const auto& rest : a.rest()) {
    if (looksLikeOption(rest) || parsed.m_positionals.size() >= command.positionals) {
      rc = refuse(command, err, rest,
                  "unknown argument '" + rest + "' (see " + std::string(command.program) +
                      (command.name.empty() ? "" : " " + std::string(command.name)) + " --help)");
      return std::nullopt;
    }
    parsed.m_positionals.push_back(rest);
  }
  for (const auto& rest : afterDashes) {
    if (parsed.m_positionals.size() >= command.positionals) {
      rc = refuse(command, err, rest,
                  "unknown argument '" + rest + "' (see " + std::string(command.program) +
                      (command.name.empty() ? "" : " " + std::string(command.name)) + " --help)");
      return std::nullopt;
    }
    parsed.m_positionals.push_back(rest);
  }
  rc = kExitOk;
  return parsed;
}

}  // namespace qf::cli
