// expect: stopped
// Never finishes: a spin loop with no exit, for the watchdog test. (__nanosleep keeps it a real loop: a bare while (true) {} has no side effects and the compiler may delete it.)
extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  while (true) __nanosleep(1000);
}
