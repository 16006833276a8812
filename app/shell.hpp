#pragma once
/// The command shell: a command declares its options once, in a table (name, value, help,
/// and the type and range of the value), and its --help, the unknown-option, missing-value,
/// repeated-option and range errors and their exit status all come from that table
/// (docs/architecture.md, "The command shell"). No Qt: qfront's commands parse with it, and so
/// can the window's command line.
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qf::cli {

/// What an option's value must be; checked when the command line is parsed, so a command only
/// sees values that passed. `expected` words the check in its refusal: "expected <expected>,
/// found '<value>'".
struct ValueCheck {
  enum class Kind { Any, Integer, Number, Choice } kind = Kind::Any;
  double lo = 0, hi = 0;      ///< Integer and Number: the range
  bool loOpen = false;        ///< Number: lo itself refused ((0, 1])
  std::string_view words;     ///< Choice: the accepted values, '|'-separated
  std::string_view expected;  ///< how the refusal words it; empty: from the range or words
};

/// An integer from lo to hi.
constexpr ValueCheck integerIn(double lo, double hi, std::string_view expected = {}) {
  return {ValueCheck::Kind::Integer, lo, hi, false, {}, expected};
}
/// A finite number in [lo, hi] (or (lo, hi] when loOpen).
constexpr ValueCheck numberIn(double lo, double hi, bool loOpen, std::string_view expected) {
  return {ValueCheck::Kind::Number, lo, hi, loOpen, {}, expected};
}
/// One of `words` ("table|csv|json").
constexpr ValueCheck oneOf(std::string_view words) {
  return {ValueCheck::Kind::Choice, 0, 0, false, words, {}};
}

/// One option of a command.
struct OptionSpec {
  std::string_view name;   ///< "--gpu"
  std::string_view value;  ///< what --help shows after the name ("ID|FILE"); empty: a flag
  /// Its help: the first line beside the name, each later line ('\n') under the first.
  std::string_view help;
  ValueCheck check = {};
  bool repeatable = false;  ///< may be given more than once (its values kept in order)
  bool hidden = false;      ///< taken, but not offered by --help (for tests)
  [[nodiscard]] bool flag() const { return value.empty(); }
};

/// A command: its usage and prose around a table of options (one or more groups, so that
/// commands share a group, such as the request shape, without repeating it).
struct CommandSpec {
  std::string_view program;  ///< "qfront"
  std::string_view name;     ///< "serving": errors say "see qfront serving --help"
  std::string_view usage;    ///< "usage: ..." and its continuation lines
  std::string_view about;    ///< the paragraph(s) after the usage; may be empty
  std::vector<std::span<const OptionSpec>> options;
  std::string_view after;       ///< what follows the options (fields, exit status)
  std::size_t positionals = 0;  ///< arguments that are not options, at most
};

/// The refusal of an option given `times` times that takes one value.
std::string repeatedOption(const std::string& name, std::size_t times);

/// The command's --help: usage, about, "options:" with one entry per option (the name and
/// value, the help from column 25), then `after`.
std::string helpText(const CommandSpec& command);

/// A parsed command line: each option's value as given (checked), flags, positionals.
class ParsedOptions {
 public:
  [[nodiscard]] std::optional<std::string> value(std::string_view name) const;
  /// Every value of a repeatable option, in order.
  [[nodiscard]] std::vector<std::string> values(std::string_view name) const;
  [[nodiscard]] bool flag(std::string_view name) const;
  [[nodiscard]] bool has(std::string_view name) const { return m_values.count(name) != 0; }
  /// A checked Integer or Number option's value.
  [[nodiscard]] std::optional<double> number(std::string_view name) const;
  [[nodiscard]] const std::vector<std::string>& positionals() const { return m_positionals; }

 private:
  friend std::optional<ParsedOptions> parseCommand(const CommandSpec&,
                                                   const std::vector<std::string>&, std::ostream&,
                                                   std::ostream&, int&);
  std::map<std::string, std::vector<std::string>, std::less<>> m_values;
  std::vector<std::string> m_positionals;
};

/// Parses `args` (without the command's name) by `command`'s table. With --help or -h it
/// prints helpText() to `out`, sets `rc` to 0 and returns nullopt. A missing value, an option
/// given twice that is not repeatable, a value its check refuses, an unknown option or more
/// positionals than the command takes: one line on `err` naming the option, `rc` 2, nullopt.
std::optional<ParsedOptions> parseCommand(const CommandSpec& command,
                                          const std::vector<std::string>& args, std::ostream& out,
                                          std::ostream& err, int& rc);

}  // namespace qf::cli
