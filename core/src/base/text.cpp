// Text helpers shared by the command line, the window and the tools.
#include <quantfront/core/base/text.hpp>

#include <algorithm>
#include <cctype>

#include <ctime>

namespace qf {

std::vector<std::string> splitAt(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    out.emplace_back(text.substr(begin, end == std::string_view::npos ? text.npos : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return out;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::string printableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool gap = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f) {
      if (gap && !out.empty() && out.back() != ' ' && c != ' ') out += ' ';
      gap = false;
      out += static_cast<char>(c);
      continue;
    }
    gap = true;
    if (c == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
      // CSI: ESC [ parameters... final byte in 0x40..0x7e
      i += 2;
      while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7e)) ++i;
    }
  }
  return trimmed(out);
}

std::string utcTimestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string asciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool sameIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

namespace {
constexpr std::string_view kRefOpen = "{--";
}  // namespace

std::string optionRef(std::string_view id) {
  return std::string(kRefOpen) + std::string(id) + "}";
}

std::string wordOptions(std::string_view text,
                        const std::function<std::string(std::string_view id)>& word) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t open = text.find(kRefOpen); open != std::string_view::npos;
       open = text.find(kRefOpen, at)) {
    const std::size_t idStart = open + kRefOpen.size();
    std::size_t close = idStart;
    while (close < text.size() && (std::isalnum(static_cast<unsigned char>(text[close])) != 0 ||
                                   text[close] == '-' || text[close] == '_'))
      ++close;
    if (close == idStart || close >= text.size() || text[close] != '}') {
      // Not a reference ("{--" in a user's text): kept as it is.
      out.append(text.substr(at, idStart - at));
      at = idStart;
      continue;
    }
    out.append(text.substr(at, open - at));
    out += word(text.substr(idStart, close - idStart));
    at = close + 1;
  }
  out.append(text.substr(at));
  return out;
}

std::string optionsAsFlags(std::string_view text) {
  if (text.find(kRefOpen) == std::string_view::npos) return std::string(text);
  return wordOptions(text, [](std::string_view id) { return "--" + std::string(id); });
}

}  // namespace qf
