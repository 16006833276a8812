// Whether a session would load back as it is.
#include <quantfront/core/session/session.hpp>

namespace qf {

std::optional<Error> validateSession(const Session& s, const std::string& file) {
  auto back = parseSessionText(sessionToText(s), file);
  if (!back) return back.error();
  return std::nullopt;
}

}  // namespace qf
