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

}  // namespace qf
