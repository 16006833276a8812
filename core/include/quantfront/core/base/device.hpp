#pragma once
/// One GPU as its driver describes it: the one device description core and cuda/ share (the
/// CUDA runtime fills it in cuda/, qfront-measure --list-devices writes it, the window's
/// child-process backend reads it back). Plain C++: included by CUDA sources too.
#include <string>

namespace qf {

struct DeviceDescription {
  int index = 0;                 ///< CUDA device index
  std::string name;              ///< as the driver reports it ("NVIDIA H200")
  int smMajor = 0, smMinor = 0;  ///< compute capability
  int smCount = 0;               ///< multiprocessors
  double memoryGib = 0;          ///< total device memory, GiB
  int memoryBusBits = 0;         ///< memory bus width, bits
  double l2Bytes = 0;            ///< L2 cache, bytes
};

}  // namespace qf
