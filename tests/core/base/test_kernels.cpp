// The kernel vocabulary: names qfront-measure writes and calibration's typed fields agree.
#include <catch2/catch.hpp>

#include <string>

#include <quantfront/core/base/kernels.hpp>

using namespace qf;

TEST_CASE("kernel names come from the kind and the scheme", "[base][kernels]") {
  // The record names sessions written by earlier builds hold (docs/session-format.md).
  CHECK(kernelName(KernelKind::HbmCopy) == "hbm_copy");
  CHECK(kernelName(KernelKind::HbmRead) == "hbm_read");
  CHECK(kernelName(KernelKind::Gemm, "bf16") == "gemm_bf16");
  CHECK(kernelName(KernelKind::Gemm, "w8a8-fp8") == "gemm_fp8");
  CHECK(kernelName(KernelKind::Gemm, "w8a8-int8") == "gemm_int8");
  CHECK(kernelName(KernelKind::Gemm, "w4a16-g128") == "gemm_w4a16-g128");
  CHECK(kernelName(KernelKind::Dequant, "w8a16") == "dequant_w8a16");
  // No such kernel: a dequant-only scheme has no GEMM, bf16 no dequant, nvfp4 neither.
  CHECK(kernelName(KernelKind::Gemm, "w8a16").empty());
  CHECK(kernelName(KernelKind::Dequant, "bf16").empty());
  CHECK(kernelName(KernelKind::Gemm, "nvfp4").empty());
  CHECK(kernelName(KernelKind::Other, "bf16").empty());
}

TEST_CASE("a record's kind is read back from its name and scheme", "[base][kernels]") {
  REQUIRE(measurableSchemeIds().size() == 8);
  int gemms = 0, dequants = 0;
  for (const auto& s : measurableSchemes()) {
    INFO(s.id);
    for (KernelKind k : {KernelKind::Dequant, KernelKind::Gemm}) {
      const std::string name = kernelName(k, s.id);
      if (name.empty()) continue;
      CHECK(kernelKindOf(name, s.id) == k);
      (k == KernelKind::Gemm ? gemms : dequants) += 1;
    }
  }
  CHECK(gemms == 4);     // bf16, FP8 and INT8 through cuBLASLt, the fused W4A16
  CHECK(dequants == 5);  // the streaming dequant kernels
  CHECK(kernelKindOf("hbm_copy", "") == KernelKind::HbmCopy);
  CHECK(kernelKindOf("gemm_fp8", "bf16") == KernelKind::Other);        // name and scheme disagree
  CHECK(kernelKindOf("dequant_w4a16_g128", "") == KernelKind::Other);  // an nvbench benchmark
  CHECK(measurableScheme("nvfp4") == nullptr);
  CHECK(std::string(kernelKindName(KernelKind::Gemm)) == "gemm");
}
