// nvbench's "blocking kernel": holds a stream while the harness enqueues a sample.
#pragma once
#include <cuda_runtime.h>

namespace lb {

// Holds a stream behind a kernel that spins until the host releases it. The harness holds its
// stream, enqueues the flush, the start event, the layer's run() and the stop event, then releases
// it: the GPU then runs them back to back, so whatever the host does between those calls (a
// preemption, a page fault, a slow launch) cannot open a gap inside the timed region. Only for
// run()s that enqueue and return: one that waits for the device would wait for itself, until the
// kernel gives up after `timeout_s`. Nor for a first run(): lazy module loading waits for the
// device too, so the harness holds the stream only after the warm-up run.
class StreamGate {
 public:
  explicit StreamGate(double timeout_s = 5.0);
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void hold(cudaStream_t stream);  // enqueue the spinning kernel on `stream`
  void release();                  // let it finish; the work queued behind it follows at once
  // After the work behind a release() has finished: whether the kernel stopped waiting on its
  // own, i.e. the host did not release it in time. Resets the flag.
  bool timed_out();

 private:
  volatile int* flags_ = nullptr;  // pinned, mapped host memory: [0] released, [1] timed out
  unsigned long long timeout_ns_ = 0;
};

}  // namespace lb
