#pragma once
/// Small text helpers every front end and tool uses: list splitting, trimming, UTC timestamps.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qf {

/// `text` split at every `separator`, empty pieces kept ("a,,b" → "a", "", "b"; "" → "").
std::vector<std::string> splitAt(std::string_view text, char separator);

/// `text` without leading and trailing spaces and tabs.
std::string trimmed(std::string_view text);

/// `text` fit to show in a title, table or report: each run of control characters (C0,
/// DEL) and terminal escape sequences (ESC [ ... final byte) becomes one space; the result
/// is trimmed. UTF-8 text is kept as it is.
std::string printableText(std::string_view text);

/// `text` with ASCII letters lower-cased (ids and keys are matched so).
std::string asciiLower(std::string_view text);

/// ASCII case-insensitive equality ("H100-SXM" names the catalog's "h100-sxm").
bool sameIgnoringCase(std::string_view a, std::string_view b);

/// A reference to one of the user's settings inside a message made in core ("give {--scheme}"):
/// `id` is the setting's option id ("scheme"). Core never names a front end's control; each
/// front end words the reference its own way when it shows the message (wordOptions): qfront
/// as its flag (--scheme), the window as the control that sets it.
std::string optionRef(std::string_view id);

/// `text` with every optionRef() replaced by `word(id)`.
std::string wordOptions(std::string_view text,
                        const std::function<std::string(std::string_view id)>& word);

/// `text` with every optionRef() worded as the command-line flag it is ("--scheme").
std::string optionsAsFlags(std::string_view text);

/// The current time in UTC as ISO 8601, "2026-11-30T16:40:00Z".
std::string utcTimestamp();

}  // namespace qf
