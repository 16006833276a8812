// Per-token KL divergence and flip rates between two runs of the same prompts
// (divergence.hpp; definitions in docs/statistics.md, "Divergence between two runs").
#include <quantfront/core/analysis/divergence.hpp>
#include <quantfront/core/base/json_io.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/percentile.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace qf::stats {

namespace {

constexpr double kMinMass = 1e-12;

/// A log-probability as a number or a numeric string (lm-eval writes both); nullopt when it is
/// neither, or not finite, or above 0 (beyond rounding).
std::optional<double> logprobOf(const Json& v) {
  double x = 0;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(x) || x > 1e-6) return std::nullopt;
  return std::min(x, 0.0);
}

/// A token's listed alternatives are a part of one distribution: their probabilities cannot
/// sum past 1 (a little over, for the rounding of printed logprobs).
std::optional<Error> probabilitiesOver(const JsonReader& r, const TokenLogprobs& t,
                                       const std::string& ptr) {
  double sum = 0;
  for (const auto& [tok, lp] : t.top) sum += std::exp(lp);
  if (sum <= 1.0 + 1e-3) return std::nullopt;
  return r.error(ptr, "top_logprobs",
                 words("the listed alternatives' probabilities sum to ", sum,
                       ", more than 1: not log-probabilities of one distribution"));
}

Result<TokenLogprobs> chatToken(const JsonReader& r, const Json& t, const std::string& ptr) {
  TokenLogprobs out;
  if (!t.is_object()) return r.error(ptr, "content", "expected an object per generated token");
  auto tok = r.string(t, ptr, "token");
  if (!tok) return tok.error();
  out.token = *tok;
  const auto lp = t.find("logprob");
  if (lp == t.end() || !logprobOf(*lp)) {
    return r.error(childPointer(ptr, "logprob"), "logprob",
                   "expected a finite log-probability <= 0");
  }
  out.logprob = *logprobOf(*lp);
  const auto top = t.find("top_logprobs");
  if (top != t.end() && !top->is_array() && !top->is_null()) {
    return r.error(
        childPointer(ptr, "top_logprobs"), "top_logprobs",
        "expected a list of {\"token\", \"logprob\"}, found " + JsonReader::describe(*top));
  }
  if (top != t.end() && top->is_array()) {
    for (std::size_t k = 0; k < top->size(); ++k) {
      const Json& e = (*top)[k];
      const std::string ep = childPointer(childPointer(ptr, "top_logprobs"), std::to_string(k));
      if (!e.is_object() || !e.contains("token") || !e["token"].is_string() ||
          !e.contains("logprob") || !logprobOf(e["logprob"])) {
        return r.error(ep, "top_logprobs", "expected {\"token\": text, \"logprob\": number <= 0}");
      }
      out.top.emplace_back(e["token"].get<std::string>(), *logprobOf(e["logprob"]));
    }
    if (auto e = probabilitiesOver(r, out, childPointer(ptr, "top_logprobs"))) return *e;
  }
  return out;
}

/// choices[0].logprobs of a completions or chat response.
Result<std::vector<TokenLogprobs>> generationTokens(const JsonReader& r, const Json& body,
                                                    const std::string& ptr) {
  const auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty()) {
    return r.error(ptr, "choices", "expected a response with a non-empty choices array");
  }
  const Json& c = (*choices)[0];
  const std::string cptr = childPointer(childPointer(ptr, "choices"), "0");
  const auto lps = c.find("logprobs");
  if (lps == c.end() || !lps->is_object()) {
    return r.error(childPointer(cptr, "logprobs"), "logprobs",
                   "no log-probabilities in this response (request logprobs, e.g. "
                   "\"logprobs\": true, \"top_logprobs\": 5)");
  }
  std::vector<TokenLogprobs> out;
  const std::string lptr = childPointer(cptr, "logprobs");
  if (const auto content = lps->find("content"); content != lps->end() && content->is_array()) {
    for (std::size_t i = 0; i < content->size(); ++i) {
      auto t = chatToken(r, (*content)[i],
                         childPointer(childPointer(lptr, "content"), std::to_string(i)));
      if (!t) return t.error();
      out.push_back(std::move(*t));
    }
    return out;
  }
  const auto tokens = lps->find("tokens");
  const auto tlp = lps->find("token_logprobs");
  if (tokens == lps->end() || tlp == lps->end() || !tokens->is_array() || !tlp->is_array() ||
      tokens->size() != tlp->size()) {
    return r.error(lptr, "token_logprobs",
                   "expected content[] (chat) or tokens[] with token_logprobs[] of the same "
                   "length (completions)");
  }
  const auto top = lps->find("top_logprobs");
  for (std::size_t i = 0; i < tokens->size(); ++i) {
    TokenLogprobs t;
    if (!(*tokens)[i].is_string()) {
      return r.error(childPointer(childPointer(lptr, "tokens"), std::to_string(i)), "tokens",
                     "expected a token string");
    }
    t.token = (*tokens)[i].get<std::string>();
    const auto lp = logprobOf((*tlp)[i]);
    if (!lp) {
      return r.error(childPointer(childPointer(lptr, "token_logprobs"), std::to_string(i)),
                     "token_logprobs", "expected a finite log-probability <= 0");
    }
    t.logprob = *lp;
    if (top != lps->end() && top->is_array() && i < top->size() && (*top)[i].is_object()) {
      for (auto it = (*top)[i].begin(); it != (*top)[i].end(); ++it) {
        const auto v = logprobOf(it.value());
        if (!v) {
          return r.error(childPointer(childPointer(lptr, "top_logprobs"), std::to_string(i)),
                         it.key(), "expected a finite log-probability <= 0");
        }
        t.top.emplace_back(it.key(), *v);
      }
      const std::string tp = childPointer(childPointer(lptr, "top_logprobs"), std::to_string(i));
      if (auto e = probabilitiesOver(r, t, tp)) return *e;
    } else if (top != lps->end() && !top->is_null() &&
               (!top->is_array() ||
                (i < top->size() && !(*top)[i].is_object() && !(*top)[i].is_null()))) {
      return r.error(childPointer(lptr, "top_logprobs"), "top_logprobs",
                     "expected a list of {token: logprob} objects, one per token");
    }
    out.push_back(std::move(t));
  }
  return out;
}

/// lm-eval's loglikelihood responses: resps = [[[loglik, is_greedy]], ...], one per choice.
Result<std::vector<double>> choiceLogliks(const JsonReader& r, const Json& o) {
  const Json& resps = o.at("resps");
  std::vector<double> out;
  for (std::size_t i = 0; i < resps.size(); ++i) {
    const Json* e = &resps[i];
    if (e->is_array() && e->size() == 1 && (*e)[0].is_array()) e = &(*e)[0];
    if (!e->is_array() || e->empty()) {
      return r.error(childPointer("/resps", std::to_string(i)), "resps",
                     "no log-likelihood (a generate_until task records none: run a "
                     "multiple-choice task, or save the server's top-k logprobs)");
    }
    const auto ll = logprobOf((*e)[0]);
    if (!ll) {
      return r.error(childPointer("/resps", std::to_string(i)), "resps",
                     "no log-likelihood (a generate_until task records none: run a "
                     "multiple-choice task, or save the server's top-k logprobs)");
    }
    out.push_back(*ll);
  }
  if (out.size() < 2) {
    return r.error("/resps", "resps", "a multiple-choice sample needs at least two choices");
  }
  return out;
}

std::string keyOf(const Json& o, std::size_t line) {
  for (const char* k : {"custom_id", "prompt_id", "doc_id"}) {
    const auto it = o.find(k);
    if (it == o.end()) continue;
    if (it->is_string()) return std::string(k) + " " + it->get<std::string>();
    if (it->is_number_integer()) return std::string(k) + " " + std::to_string(it->get<long long>());
  }
  return "record " + std::to_string(line);
}

/// Softmax of log-likelihoods.
std::vector<double> normalised(const std::vector<double>& ll) {
  const double m = *std::max_element(ll.begin(), ll.end());
  std::vector<double> p(ll.size());
  double sum = 0;
  for (std::size_t i = 0; i < ll.size(); ++i) sum += p[i] = std::exp(ll[i] - m);
  for (auto& x : p) x /= sum;
  return p;
}

double choiceKl(const std::vector<double>& a, const std::vector<double>& b) {
  const auto p = normalised(a), q = normalised(b);
  double kl = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] > 0) kl += p[i] * (std::log(p[i]) - std::log(std::max(q[i], kMinMass)));
  }
  return std::max(0.0, kl);
}

std::string topToken(const TokenLogprobs& t) {
  std::string best = t.token;
  double lp = t.logprob;
  for (const auto& [tok, v] : t.top) {
    if (v > lp) best = tok, lp = v;
  }
  return best;
}

}  // namespace

Result<std::vector<LogprobSample>> parseLogprobSamples(std::string_view text,
                                                       const std::string& label) {
  std::vector<LogprobSample> out;
  std::set<std::string> keys;
  std::size_t line = 0, pos = 0, records = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = label + " line " + std::to_string(line);
    auto doc = parseJson(raw, where);
    if (!doc) return doc.error();
    const JsonReader r(*doc, where);
    if (!doc->is_object()) return r.error("", "", "expected one JSON object per line");
    LogprobSample s;
    s.line = line;
    // Without an id, records pair by their order: blank lines (a leading one, say) do not
    // shift a file's prompts onto its neighbours'.
    s.key = keyOf(*doc, ++records);
    const Json* body = &*doc;
    std::string ptr;
    if (const auto resp = doc->find("response"); resp != doc->end() && resp->is_object()) {
      const auto b = resp->find("body");
      if (b == resp->end() || !b->is_object()) {
        return r.error("/response", "body", "a run-batch output line without a response body");
      }
      body = &*b;
      ptr = "/response/body";
    }
    if (doc->contains("resps") && (*doc)["resps"].is_array() && doc->contains("doc_id")) {
      auto ll = choiceLogliks(r, *doc);
      if (!ll) return ll.error();
      s.choiceLoglik = std::move(*ll);
    } else {
      auto toks = generationTokens(r, *body, ptr);
      if (!toks) return toks.error();
      s.tokens = std::move(*toks);
    }
    if (!keys.insert(s.key).second) {
      return Error{where, "", "key", "'" + s.key + "' appears twice in this file"};
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) return Error{label, "", "", "no records with log-probabilities"};
  return out;
}

Result<std::vector<LogprobSample>> readLogprobSamples(const std::string& path) {
  auto text = readFileBytes(path);
  if (!text) return text.error();
  return parseLogprobSamples(*text, path);
}

double tokenKl(const TokenLogprobs& a, const TokenLogprobs& b) {
  // Tokens by text: entries of one text (byte-fallback pieces decode alike) add up; the
  // produced token counts once, from the list when it is there.
  auto masses = [](const TokenLogprobs& t) {
    std::map<std::string, double> m;
    for (const auto& [tok, v] : t.top) m[tok] += std::exp(v);
    if (!m.count(t.token)) m[t.token] = std::exp(t.logprob);
    for (auto& [tok, p] : m) p = std::min(p, 1.0);
    return m;
  };
  const std::map<std::string, double> pa = masses(a), qb = masses(b);
  double qMin = 1.0;
  for (const auto& [t, v] : qb) qMin = std::min(qMin, v);
  double kl = 0, pListed = 0, qListed = 0;
  for (const auto& [t, p] : pa) {
    const auto it = qb.find(t);
    const double q = std::max(it == qb.end() ? qMin : it->second, kMinMass);
    pListed += p;
    qListed += q;
    if (p > 0) kl += p * (std::log(p) - std::log(q));
  }
  const double pRest = std::max(1.0 - pListed, kMinMass);
  const double qRest = std::max(1.0 - qListed, kMinMass);
  if (pListed < 1.0) kl += pRest * (std::log(pRest) - std::log(qRest));
  return std::max(0.0, kl);
}

Result<Divergence> compareDivergence(const std::vector<LogprobSample>& a, const std::string& fileA,
                                     const std::vector<LogprobSample>& b, const std::string& fileB,
                                     const BootstrapOptions& boot) {
  if (boot.resamples < kMinResamples || boot.resamples > kMaxResamples ||
      !(boot.confidence > 0 && boot.confidence < 1)) {
    return Error{"", "", "resamples",
                 "resamples must be " + std::to_string(kMinResamples) + " to " +
                     std::to_string(kMaxResamples) + " and confidence in (0, 1)"};
  }
  std::map<std::string, const LogprobSample*> byKey;
  for (const auto& s : b) byKey[s.key] = &s;
  Divergence d;
  std::vector<double> perPosition;
  std::vector<double> promptSum;
  std::vector<double> promptCount;
  std::size_t flips = 0, answerFlips = 0;
  double choiceSum = 0;
  std::set<std::string> matched;
  for (const auto& sa : a) {
    const auto it = byKey.find(sa.key);
    if (it == byKey.end()) {
      ++d.unmatched;
      continue;
    }
    matched.insert(sa.key);
    const LogprobSample& sb = *it->second;
    const bool choiceA = !sa.choiceLoglik.empty(), choiceB = !sb.choiceLoglik.empty();
    if (choiceA != choiceB) {
      return Error{fileB + " line " + std::to_string(sb.line), "", "key",
                   "'" + sa.key + "' is a " + (choiceA ? "multiple-choice sample" : "generation") +
                       " in " + fileA + " but not here"};
    }
    if (choiceA) {
      if (sa.choiceLoglik.size() != sb.choiceLoglik.size()) {
        return Error{fileB + " line " + std::to_string(sb.line), "", "resps",
                     "'" + sa.key + "' has " + std::to_string(sb.choiceLoglik.size()) +
                         " choices here and " + std::to_string(sa.choiceLoglik.size()) + " in " +
                         fileA};
      }
      ++d.choiceQuestions;
      choiceSum += choiceKl(sa.choiceLoglik, sb.choiceLoglik);
      const auto argmax = [](const std::vector<double>& v) {
        return std::max_element(v.begin(), v.end()) - v.begin();
      };
      answerFlips += argmax(sa.choiceLoglik) != argmax(sb.choiceLoglik) ? 1 : 0;
      continue;
    }
    ++d.prompts;
    const std::size_t n = std::min(sa.tokens.size(), sb.tokens.size());
    double sum = 0;
    std::size_t count = 0;
    bool diverged = sa.tokens.size() != sb.tokens.size();
    for (std::size_t i = 0; i < n; ++i) {
      const double kl = tokenKl(sa.tokens[i], sb.tokens[i]);
      perPosition.push_back(kl);
      sum += kl;
      ++count;
      flips += topToken(sa.tokens[i]) != topToken(sb.tokens[i]) ? 1 : 0;
      if (sa.tokens[i].token != sb.tokens[i].token) {
        // The next position's context differs between the runs: stop comparing here.
        diverged = true;
        d.positionsAfter += std::max(sa.tokens.size(), sb.tokens.size()) - (i + 1);
        break;
      }
      if (i + 1 == n) d.positionsAfter += std::max(sa.tokens.size(), sb.tokens.size()) - n;
    }
    d.diverged += diverged ? 1 : 0;
    d.positions += count;
    promptSum.push_back(sum);
    promptCount.push_back(static_cast<double>(count));
  }
  d.unmatched += static_cast<std::int64_t>(b.size() - matched.size());
  if (d.prompts == 0 && d.choiceQuestions == 0) {
    return Error{fileB, "", "key",
                 "no record pairs with one of " + fileA +
                     " (records pair by custom_id, prompt_id or doc_id, else by order of records)"};
  }
  if (d.unmatched > 0) {
    d.warnings.push_back(std::to_string(d.unmatched) +
                         " records are in only one of the two files and were left out");
  }
  if (d.choiceQuestions > 0) {
    d.meanChoiceKl = choiceSum / static_cast<double>(d.choiceQuestions);
    d.answerFlipRate = static_cast<double>(answerFlips) / static_cast<double>(d.choiceQuestions);
  }
  if (d.positions > 0) {
    double total = 0;
    for (const double s : promptSum) total += s;
    d.meanTokenKl = total / static_cast<double>(d.positions);
    d.tokenFlipRate = static_cast<double>(flips) / static_cast<double>(d.positions);
    d.p99TokenKl = percentileLinear(perPosition, 99);
    // The mean over positions with prompts resampled (a ratio of sums: positions of one
    // prompt are not independent).
    const std::size_t n = promptSum.size();
    if (n < 2) return d;
    Rng rng(boot.seed);
    std::vector<double> means;
    for (int rep = 0; rep < boot.resamples; ++rep) {
      double s = 0, c = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto k = rng.below(n);
        s += promptSum[k];
        c += promptCount[k];
      }
      means.push_back(c > 0 ? s / c : 0.0);
    }
    const double tail = (1.0 - boot.confidence) / 2.0 * 100.0;
    std::vector<double> copy = means;
    Interval ci;
    ci.lo = percentileLinear(copy, tail);
    ci.hi = percentileLinear(means, 100.0 - tail);
    d.meanTokenKlCi = ci;
  }
  return d;
}

}  // namespace qf::stats
