// The declaration of launch_probe (workloads/launch/kernels.cu), for the layers that launch it
// with <<<>>> (runtime, graph). kernels.cu is compiled once, as a translation unit of its own: a
// launch goes through the host-side stub nvcc generates there, so other files need only this.
#pragma once

extern "C" __global__ void launch_probe(float* out, float value);
