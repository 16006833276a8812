#include <nlohmann/json.hpp>
#include <quantfront/core/model/hardware.hpp>

#include <quantfront/core/base/numbers.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

namespace qf {

const char* tensorPathName(TensorPath p) {
  switch (p) {
    case TensorPath::Bf16:
      return "bf16";
    case TensorPath::Fp16:
      return "fp16";
    case TensorPath::Fp8:
      return "fp8";
    case TensorPath::Int8:
      return "int8";
    case TensorPath::Fp4:
      return "fp4";
  }
  return "?";
}

std::optional<TensorPath> tensorPathFromName(const std::string& name) {
  for (TensorPath p : kAllTensorPaths) {
    if (name == tensorPathName(p)) return p;
  }
  return std::nullopt;
}

namespace {

std::string rangeMessage(double v, double lo, double hi, const char* unit) {
  return "must be between " + sigFigs(lo, 6) + " and " + sigFigs(hi, 6) + " " + unit + ", found " +
         sigFigs(v, 6);
}

std::optional<Error> figureInRange(double v, const std::string& pointer, const std::string& key,
                                   const GpuFieldRange& r) {
  if (v >= r.min && v <= r.max) return std::nullopt;
  std::string ptr = pointer + "/" + key;
  for (char& ch : ptr) {
    if (ch == '.') ch = '/';
  }
  return Error{"", ptr, key, rangeMessage(v, r.min, r.max, r.unit)};
}

namespace {

/// The calibration block's scalar figures: key, member, range ((0, hi] when `loOpen`, else
/// [0, hi]). The range check, the reader and the writer all walk this one table.
struct ScalarFigure {
  const char* key;
  std::optional<double> GpuCalibration::*member;
  bool loOpen;
  double hi;
};
constexpr ScalarFigure kScalarFigures[] = {
    {"overhead_ms", &GpuCalibration::overheadMs, false, kMaxOverheadMs},
    {"bandwidth_efficiency", &GpuCalibration::bandwidthEfficiency, true, kMaxEfficiency},
    {"seq_overhead_us", &GpuCalibration::seqOverheadUs, false, kMaxSeqOverheadUs},
    {"allreduce_latency_us", &GpuCalibration::allreduceLatencyUs, false, kMaxAllreduceLatencyUs},
    {"gemm_m_half", &GpuCalibration::gemmMHalf, false, kMaxGemmMHalf},
    {"tp_width_half", &GpuCalibration::tpWidthHalf, false, kMaxTpWidthHalf},
    {"request_overhead_ms", &GpuCalibration::requestOverheadMs, false, kMaxRequestOverheadMs}};

}  // namespace

std::optional<Error> checkCalibration(const GpuCalibration& c, const std::string& pointer) {
  const std::string base = pointer + "/calibration";
  auto ranged = [&](double x, const std::string& key, double lo, bool loOpen,
                    double hi) -> std::optional<Error> {
    if (std::isfinite(x) && (loOpen ? x > lo : x >= lo) && x <= hi) return std::nullopt;
    const std::string msg = "must be in " + std::string(loOpen ? "(" : "[") + sigFigs(lo, 6) +
                            ", " + sigFigs(hi, 6) + "], found " + sigFigs(x, 6);
    std::string ptr = key;
    for (char& ch : ptr) {
      if (ch == '.') ch = '/';
    }
    return Error{"", pointer + "/" + ptr, key, msg};
  };
  // Each figure and its range: (lo, hi], or [lo, hi] where zero is allowed.
  for (const ScalarFigure& f : kScalarFigures) {
    const std::optional<double>& x = c.*f.member;
    if (!x) continue;
    if (auto e = ranged(*x, std::string("calibration.") + f.key, 0, f.loOpen, f.hi)) return e;
  }
  for (auto [byKey, name, loOpen, hi] :
       {std::tuple{&c.computeEfficiency, "compute_efficiency", true, kMaxEfficiency},
        std::tuple{&c.kernelBandwidthEfficiency, "kernel_bandwidth_efficiency", true,
                   kMaxEfficiency},
        std::tuple{&c.attentionBandwidthEfficiency, "attention_bandwidth_efficiency", true,
                   kMaxEfficiency},
        std::tuple{&c.dequantSPerWeight, "dequant_s_per_weight", false, kMaxDequantSPerWeight}}) {
    for (const auto& [key, x] : *byKey) {
      if (key.empty()) return Error{"", base + "/" + name, "calibration", "empty key"};
      if (auto e = ranged(x, std::string("calibration.") + name + "." + key, 0, loOpen, hi))
        return e;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<GpuSpec> parseGpu(const Json& j, const std::string& file, const std::string& pointer) {
  JsonReader rd(j, file);
  if (!j.is_object())
    return rd.error(pointer, "", std::string("expected a GPU object, found ") + j.type_name());
  GpuSpec g;
  auto name = rd.string(j, pointer, "name");
  if (!name) return name.error();
  g.name = *name;
  if (j.contains("id") && j["id"].is_string()) g.id = j["id"].get<std::string>();
  const std::string base = pointer == "/" ? std::string() : pointer;
  // Physically sane ranges: a figure outside them is a typo or hostile input, and would
  // carry infinities or overflowed integers into every result.
  auto inRange = [&](double v, const std::string& ptr, const std::string& field,
                     const GpuFieldRange& r) -> std::optional<Error> {
    if (v >= r.min && v <= r.max) return std::nullopt;
    return rd.error(ptr, field, rangeMessage(v, r.min, r.max, r.unit));
  };
  if (auto err = rd.readNumber(g.memoryGib, j, pointer, "memory_gib", true)) return *err;
  if (auto err = inRange(g.memoryGib, base + "/memory_gib", "memory_gib", kGpuMemoryGibRange))
    return *err;
  if (auto err = rd.readNumber(g.hbmBandwidthTBps, j, pointer, "hbm_bandwidth_tbs", true))
    return *err;
  if (auto err = inRange(g.hbmBandwidthTBps, base + "/hbm_bandwidth_tbs", "hbm_bandwidth_tbs",
                         kGpuBandwidthTBpsRange)) {
    return *err;
  }
  if (auto err = rd.readNumber(g.vectorFp32Tflops, j, pointer, "vector_fp32_tflops", true))
    return *err;
  if (auto err = inRange(g.vectorFp32Tflops, base + "/vector_fp32_tflops", "vector_fp32_tflops",
                         kGpuTflopsRange)) {
    return *err;
  }
  const std::string tptr = base + "/tensor_tflops";
  const auto tt = j.find("tensor_tflops");
  if (tt == j.end() || !tt->is_object()) {
    return rd.error(
        tptr, "tensor_tflops",
        "required object of dense tensor peaks (bf16, fp16, fp8, int8, fp4) is missing");
  }
  bool any = false;
  for (auto it = tt->begin(); it != tt->end(); ++it) {
    const auto path = tensorPathFromName(it.key());
    if (!path) {
      return rd.error(tptr + "/" + it.key(), "tensor_tflops." + it.key(),
                      "unknown tensor path; expected bf16, fp16, fp8, int8 or fp4");
    }
    auto v = rd.optNumber(*tt, tptr, it.key(), true);
    if (!v) return v.error();
    if (v->has_value()) {
      if (auto err =
              inRange(**v, tptr + "/" + it.key(), "tensor_tflops." + it.key(), kGpuTflopsRange)) {
        return *err;
      }
      g.tensorTflops[static_cast<std::size_t>(*path)] = **v;
      any = true;
    }
  }
  if (!any) return rd.error(tptr, "tensor_tflops", "no tensor path given");
  if (!g.hasPath(TensorPath::Bf16) && !g.hasPath(TensorPath::Fp16)) {
    return rd.error(tptr, "tensor_tflops",
                    "needs at least a bf16 or fp16 peak (the fallback path)");
  }
  auto nv = rd.optNumber(j, pointer, "nvlink_gbs", true);
  if (!nv) return nv.error();
  if (nv->has_value()) {
    if (auto err = inRange(**nv, base + "/nvlink_gbs", "nvlink_gbs", kGpuNvlinkGBpsRange))
      return *err;
  }
  g.nvlinkGBps = *nv;
  auto domain = rd.optNumber(j, pointer, "nvlink_domain_gpus");
  if (!domain) return domain.error();
  if (domain->has_value()) {
    if (auto err = inRange(**domain, base + "/nvlink_domain_gpus", "nvlink_domain_gpus",
                           kGpuNvlinkDomainRange))
      return *err;
    if (**domain != std::floor(**domain)) {
      return rd.error(base + "/nvlink_domain_gpus", "nvlink_domain_gpus",
                      "expected a whole number of GPUs");
    }
    g.nvlinkDomainGpus = static_cast<int>(**domain);
  }
  auto net = rd.optNumber(j, pointer, "network_gbs");
  if (!net) return net.error();
  if (net->has_value()) {
    if (auto err = inRange(**net, base + "/network_gbs", "network_gbs", kGpuNetworkGBpsRange))
      return *err;
    g.networkGBps = **net;
  }
  auto price = rd.optNumber(j, pointer, "price_per_hour");
  if (!price) return price.error();
  if (price->has_value() && **price < 0) {
    return rd.error(base + "/price_per_hour", "price_per_hour", "must not be negative");
  }
  if (price->has_value()) {
    if (auto err = inRange(**price, base + "/price_per_hour", "price_per_hour", kGpuPriceRange))
      return *err;
  }
  g.pricePerGpuHourUsd = *price;
  g.priceSource = j.value("price_source", std::string());
  g.source = j.contains("source") && j["source"].is_string() ? j["source"].get<std::string>() : "";
  if (const auto cal = j.find("calibration"); cal != j.end() && !cal->is_null()) {
    auto c = parseGpuCalibration(*cal, rd.file(), base + "/calibration");
    if (!c) return c.error();
    g.calibration = std::move(*c);
  }
  return g;
}

Result<GpuCalibration> parseGpuCalibration(const Json& j, const std::string& file,
                                           const std::string& pointer) {
  JsonReader rd(j, file);
  if (!j.is_object()) {
    return rd.error(pointer, "calibration",
                    std::string("expected an object, found ") + j.type_name());
  }
  GpuCalibration c;
  Json extra = Json::object();
  auto ranged = [&](const Json& v, const std::string& ptr, const std::string& field, double lo,
                    bool loOpen, double hi) -> Result<double> {
    if (!v.is_number()) {
      return rd.error(ptr, field, std::string("expected a number, found ") + v.type_name());
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || (loOpen ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
      return rd.error(ptr, field,
                      "must be in " + std::string(loOpen ? "(" : "[") + sigFigs(lo, 6) + ", " +
                          sigFigs(hi, 6) + "], found " + v.dump());
    }
    return x;
  };
  auto numberMap = [&](const Json& v, const std::string& ptr, const std::string& field, double lo,
                       bool loOpen, double hi,
                       std::map<std::string, double>& out) -> std::optional<Error> {
    if (!v.is_object()) {
      return rd.error(ptr, field,
                      std::string("expected an object of numbers by key, found ") + v.type_name());
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key().empty()) return rd.error(ptr, field, "empty key");
      auto x = ranged(it.value(), ptr + "/" + it.key(), field + "." + it.key(), lo, loOpen, hi);
      if (!x) return x.error();
      out[it.key()] = *x;
    }
    return std::nullopt;
  };
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string ptr = pointer + "/" + key;
    const std::string field = "calibration." + key;
    const Json& v = it.value();
    if (key == "source") {
      if (!v.is_string())
        return rd.error(ptr, field, std::string("expected a string, found ") + v.type_name());
      c.source = v.get<std::string>();
    } else if (const auto* f = std::find_if(std::begin(kScalarFigures), std::end(kScalarFigures),
                                            [&key](const ScalarFigure& g) { return key == g.key; });
               f != std::end(kScalarFigures)) {
      auto x = ranged(v, ptr, field, 0, f->loOpen, f->hi);
      if (!x) return x.error();
      c.*f->member = *x;
    } else if (key == "compute_efficiency") {
      if (auto e = numberMap(v, ptr, field, 0, true, kMaxEfficiency, c.computeEfficiency))
        return *e;
    } else if (key == "dequant_s_per_weight") {
      if (auto e = numberMap(v, ptr, field, 0, false, kMaxDequantSPerWeight, c.dequantSPerWeight))
        return *e;
    } else if (key == "kernel_bandwidth_efficiency") {
      if (auto e = numberMap(v, ptr, field, 0, true, kMaxEfficiency, c.kernelBandwidthEfficiency))
        return *e;
    } else if (key == "attention_bandwidth_efficiency") {
      if (auto e =
              numberMap(v, ptr, field, 0, true, kMaxEfficiency, c.attentionBandwidthEfficiency))
        return *e;
      // Keyed by the KV cache dtypes the engine prices: a typo ("fp16", "FP8") would
      // otherwise be kept and never read.
      for (const auto& [kv, x] : c.attentionBandwidthEfficiency) {
        if (kv != "fp8" && kv != "bf16") {
          return rd.error(ptr + "/" + kv, field + "." + kv,
                          "unknown KV cache dtype; expected fp8 or bf16");
        }
      }
    } else if (key == "residuals" && !v.is_object() && !v.is_null()) {
      return rd.error(ptr, field, std::string("expected an object, found ") + v.type_name());
    } else {
      extra[key] = v;
    }
  }
  c.extraJson = extra.dump();
  return c;
}

Json gpuCalibrationToJson(const GpuCalibration& c) {
  Json j = Json::parse(c.extraJson, nullptr, false);
  if (!j.is_object()) j = Json::object();
  j["source"] = c.source;
  for (const ScalarFigure& f : kScalarFigures) {
    if (const auto& x = c.*f.member) j[f.key] = *x;
  }
  if (!c.computeEfficiency.empty()) j["compute_efficiency"] = c.computeEfficiency;
  if (!c.dequantSPerWeight.empty()) j["dequant_s_per_weight"] = c.dequantSPerWeight;
  if (!c.kernelBandwidthEfficiency.empty())
    j["kernel_bandwidth_efficiency"] = c.kernelBandwidthEfficiency;
  if (!c.attentionBandwidthEfficiency.empty())
    j["attention_bandwidth_efficiency"] = c.attentionBandwidthEfficiency;
  return j;
}

Result<GpuSpec> loadGpuFile(const std::string& path) {
  auto j = readJsonFile(path, false, 16ull * 1024 * 1024);
  if (!j) return j.error();
  auto g = parseGpu(*j, path, "/");
  if (!g) return g.error();
  if (g->id.empty()) g->id = std::filesystem::path(path).stem().string();
  return g;
}

std::optional<Error> checkGpu(const GpuSpec& g, const std::string& pointer) {
  if (g.name.empty()) return Error{"", pointer + "/name", "name", "required text is missing"};
  if (auto e = figureInRange(g.memoryGib, pointer, "memory_gib", kGpuMemoryGibRange)) return e;
  if (auto e =
          figureInRange(g.hbmBandwidthTBps, pointer, "hbm_bandwidth_tbs", kGpuBandwidthTBpsRange)) {
    return e;
  }
  if (auto e = figureInRange(g.vectorFp32Tflops, pointer, "vector_fp32_tflops", kGpuTflopsRange))
    return e;
  for (TensorPath p : kAllTensorPaths) {
    const auto& v = g.tensorTflops[static_cast<std::size_t>(p)];
    if (!v) continue;
    if (auto e = figureInRange(*v, pointer, std::string("tensor_tflops.") + tensorPathName(p),
                               kGpuTflopsRange)) {
      return e;
    }
  }
  if (!g.hasPath(TensorPath::Bf16) && !g.hasPath(TensorPath::Fp16)) {
    return Error{"", pointer + "/tensor_tflops", "tensor_tflops",
                 "needs at least a bf16 or fp16 peak (the fallback path)"};
  }
  if (g.nvlinkGBps) {
    if (auto e = figureInRange(*g.nvlinkGBps, pointer, "nvlink_gbs", kGpuNvlinkGBpsRange)) return e;
  }
  if (auto e =
          figureInRange(g.nvlinkDomainGpus, pointer, "nvlink_domain_gpus", kGpuNvlinkDomainRange))
    return e;
  if (auto e = figureInRange(g.networkGBps, pointer, "network_gbs", kGpuNetworkGBpsRange)) return e;
  if (g.pricePerGpuHourUsd) {
    if (auto e = figureInRange(*g.pricePerGpuHourUsd, pointer, "price_per_hour", kGpuPriceRange))
      return e;
  }
  if (g.calibration) return checkCalibration(*g.calibration, pointer);
  return std::nullopt;
}

Json gpuToJson(const GpuSpec& g) {
  Json j;
  j["id"] = g.id;
  j["name"] = g.name;
  j["memory_gib"] = g.memoryGib;
  j["hbm_bandwidth_tbs"] = g.hbmBandwidthTBps;
  Json tt = Json::object();
  for (TensorPath p : kAllTensorPaths) {
    if (g.hasPath(p)) tt[tensorPathName(p)] = *g.tensorTflops[static_cast<std::size_t>(p)];
  }
  j["tensor_tflops"] = tt;
  j["vector_fp32_tflops"] = g.vectorFp32Tflops;
  j["nvlink_gbs"] = g.nvlinkGBps ? Json(*g.nvlinkGBps) : Json(nullptr);
  // Written where they differ from the defaults, so files and sessions without them read the
  // same and are written back unchanged.
  if (g.nvlinkDomainGpus != kDefaultNvlinkDomainGpus) j["nvlink_domain_gpus"] = g.nvlinkDomainGpus;
  if (g.networkGBps != kDefaultNetworkGBps) j["network_gbs"] = g.networkGBps;
  j["price_per_hour"] = g.pricePerGpuHourUsd ? Json(*g.pricePerGpuHourUsd) : Json(nullptr);
  j["price_source"] = g.priceSource;
  j["source"] = g.source;
  if (g.calibration) j["calibration"] = gpuCalibrationToJson(*g.calibration);
  return j;
}

Result<Scheme> parseScheme(const Json& j, const std::string& file, const std::string& pointer) {
  JsonReader rd(j, file);
  Scheme s;
  auto id = rd.string(j, pointer, "id");
  if (!id) return id.error();
  s.id = *id;
  s.name = j.value("name", s.id);
  if (auto err = rd.readOptNumber(s.weightBits, j, pointer, "weight_bits")) return *err;
  if (auto err = rd.readOptNumber(s.scaleBits, j, pointer, "scale_bits")) return *err;
  if (auto err = rd.readOptNumber(s.groupSize, j, pointer, "group_size")) return *err;
  if (auto err = rd.readOptNumber(s.zeroBits, j, pointer, "zero_bits")) return *err;
  if (auto err = rd.readOptNumber(s.c, j, pointer, "c")) return *err;
  if (!(s.weightBits > 0) || s.scaleBits < 0 || s.groupSize < 0 || s.zeroBits < 0 || s.c < 0) {
    return rd.error(pointer, "weight_bits",
                    "bits, group size and c must be non-negative (weight_bits positive)");
  }
  auto path = rd.string(j, pointer, "path");
  if (!path) return path.error();
  const auto p = tensorPathFromName(*path);
  if (!p) return rd.error(pointer + "/path", "path", "unknown tensor path '" + *path + "'");
  s.path = *p;
  s.activation = j.value("activation", std::string());
  s.cNote = j.value("c_note", std::string());
  auto head = rd.optBoolean(j, pointer, "quantizes_lm_head");
  if (!head) return head.error();
  s.quantizesLmHead = head->value_or(false);
  if (const auto it = j.find("constants_of"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      return rd.error(pointer + "/constants_of", "constants_of",
                      "expected the id of the scheme whose kernel runs this one");
    s.constantsOf = it->get<std::string>();
  }
  return s;
}

}  // namespace qf
