#pragma once
/// cuda/'s implementation of core's MeasurementBackend: the devices queryDevices() sees and
/// measure() over planForModel()'s plan. The window gets one from app/quantfront_main.cpp;
/// ui/ sees only the core interface. Plain C++: no CUDA headers.
#include <memory>

#include <quantfront/core/session/measurement.hpp>

namespace qf::cuda {

/// A backend measuring on this machine's CUDA devices.
std::shared_ptr<MeasurementBackend> makeCudaBackend();

}  // namespace qf::cuda
