#pragma once
/// Errors for bad user input: data, not exceptions. Every message names the file, the
/// position (line:column or JSON pointer) and the field, so a user can fix the input.
#include <string>
#include <utility>
#include <variant>

namespace qf {

/// What kind of failure an Error is: bad input (the usual case) or a cancellation the
/// caller asked for through a progress callback.
enum class ErrorKind { Input, Cancelled };

/// A user-facing input error.
struct Error {
  std::string file;      ///< file name as the user gave it (the caller says where input came from)
  std::string position;  ///< "line 3, column 7", a JSON pointer, or empty
  std::string field;     ///< the key or argument at fault, or empty
  std::string message;   ///< what is wrong, in one sentence
  ErrorKind kind = ErrorKind::Input;

  /// The error a cancelled operation on `file` returns (message "cancelled").
  static Error cancelled(std::string file) {
    return Error{std::move(file), "", "", "cancelled", ErrorKind::Cancelled};
  }
  /// True when the operation was cancelled rather than refused.
  [[nodiscard]] bool isCancelled() const { return kind == ErrorKind::Cancelled; }

  /// One line: "FILE: POSITION: field 'F': MESSAGE" (empty parts left out).
  [[nodiscard]] std::string str() const;
  /// This error, said to come from `source` when it does not name a file yet (core functions
  /// that read no file leave `file` empty; the caller knows where the input came from).
  [[nodiscard]] Error from(const std::string& source) const {
    Error e = *this;
    if (e.file.empty()) e.file = source;
    return e;
  }
};

/// Either a value or an Error. Small, C++20 stand-in for std::expected.
template <class T>
class Result {
 public:
  Result(T value) : m_v(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : m_v(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  T* operator->() { return &std::get<0>(m_v); }
  const T* operator->() const { return &std::get<0>(m_v); }
  T& operator*() & { return std::get<0>(m_v); }
  const T& operator*() const& { return std::get<0>(m_v); }
  [[nodiscard]] const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

}  // namespace qf
