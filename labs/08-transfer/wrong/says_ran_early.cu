// expect: the trip said it had ended before c was written
// Says its trip has ended before it has: the child stops a timed trip's clock when the trip process replies "ran", on a socket that the student's process holds. The rules allow memcpy, which lies in libc; from its address the file walks back to libc's ELF header and its dynamic symbol table and so calls any libc function without naming it (pthread_create, getsockopt, socketpair, dup, dup2, send, recv, usleep). A thread it starts in lab_setup finds the socket (the descriptor whose SO_TYPE is SOCK_SEQPACKET); when lab_trip starts, the thread sends a "ran" of its own (the trip process's reply, its layout copied from trip_process.cpp), then puts a socket of its own on the socket's descriptor (dup2), so that the runner's real "ran" goes there, and puts the real one back once it has come. lab_trip waits 50 ms before it does the (honest) work, so that the early "ran" is seen with c still the poison whatever the size: a real attack paces it under the link's bound instead. The child reads a keyed sample of c before its end mark (lab/runners/host_trip/trip_sample.h): c is not written when the early "ran" arrives and is written soon after, so the trip fails, at the first check size.
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static const long long kChunk = 1LL << 21;
static const int kStreams = 4;
static float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
static cudaStream_t streams[kStreams];

extern "C" void* lab_host_alloc(size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
extern "C" void lab_host_free(void* p) { cudaFreeHost(p); }

static cudaError_t honest_setup(long long n) {
  const size_t bytes = (size_t)n * sizeof(float);
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  for (int s = 0; s < kStreams; ++s) cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);
  return cudaGetLastError();
}

static cudaError_t honest_trip(const float* a, const float* b, float* c, long long n) {
  for (long long start = 0, k = 0; start < n; start += kChunk, ++k) {
    const long long count = n - start < kChunk ? n - start : kChunk;
    const size_t bytes = (size_t)count * sizeof(float);
    cudaStream_t s = streams[k % kStreams];
    cudaMemcpyAsync(d_a + start, a + start, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(d_b + start, b + start, bytes, cudaMemcpyHostToDevice, s);
    add<<<(unsigned)((count + 255) / 256), 256, 0, s>>>(d_a + start, d_b + start, d_c + start, count);
    cudaMemcpyAsync(c + start, d_c + start, bytes, cudaMemcpyDeviceToHost, s);
  }
  for (int s = 0; s < kStreams; ++s) cudaStreamSynchronize(streams[s]);
  return cudaGetLastError();
}

extern "C" cudaError_t lab_teardown(void) {
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  for (int s = 0; s < kStreams; ++s) cudaStreamDestroy(streams[s]);
  return cudaGetLastError();
}

// Any function of libc's, by name, without naming it: memcpy (which the rules allow) lies in libc;
// from its address back to libc's ELF header (the first page that starts with \x7fELF), then its
// program headers to its dynamic section, to its symbol and string tables and its GNU hash table.
typedef unsigned long long u64;
static void* libc(const char* name) {
  const unsigned char* base = (const unsigned char*)((u64)&memcpy & ~(u64)4095);
  while (!(base[0] == 0x7f && base[1] == 'E' && base[2] == 'L' && base[3] == 'F')) base -= 4096;
  const unsigned char* ph = base + *(const u64*)(base + 32);
  const long long* dyn = 0;
  for (int i = 0; i < *(const unsigned short*)(base + 56); ++i, ph += 56)
    if (*(const unsigned*)ph == 2) dyn = (const long long*)(base + *(const u64*)(ph + 16));  // PT_DYNAMIC
  const char* strtab = 0;
  const unsigned char* symtab = 0;
  const unsigned* hash = 0;
  for (; dyn[0] != 0; dyn += 2) {
    const unsigned char* p = (const unsigned char*)dyn[1];
    if (p < base) p = base + dyn[1];  // not relocated by the loader on every architecture
    if (dyn[0] == 5) strtab = (const char*)p;                 // DT_STRTAB
    if (dyn[0] == 6) symtab = p;                              // DT_SYMTAB
    if (dyn[0] == 0x6ffffef5) hash = (const unsigned*)p;      // DT_GNU_HASH
  }
  unsigned h = 5381;
  for (const char* c = name; *c; ++c) h = h * 33 + (unsigned char)*c;
  const unsigned* buckets = hash + 4 + hash[2] * 2;
  const unsigned* chain = buckets + hash[0];
  for (unsigned i = buckets[h % hash[0]]; i != 0; ++i) {
    const unsigned link = chain[i - hash[1]];
    const unsigned char* sym = symtab + 24 * (u64)i;
    const char* s = strtab + *(const unsigned*)sym;
    const char* c = name;
    while (*c && *c == *s) ++c, ++s;
    if ((link | 1) == (h | 1) && *c == 0 && *s == 0 && *(const u64*)(sym + 8)) return (void*)(base + *(const u64*)(sym + 8));
    if (link & 1) break;
  }
  return 0;
}

typedef int (*thread_start_fn)(unsigned long*, const void*, void* (*)(void*), void*);
typedef int (*getsockopt_fn)(int, int, int, void*, unsigned*);
typedef int (*socketpair_fn)(int, int, int, int*);
typedef int (*fd_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef long (*send_fn)(int, const void*, size_t, int);
typedef long (*recv_fn)(int, void*, size_t, int);
typedef int (*usleep_fn)(unsigned);
typedef long (*write_fn)(int, const void*, size_t);

// One line on standard error (the student's output, which `lab check` shows): what the attack did,
// so that a run where it did not take shows where it stopped.
static void say(const char* what, long value) {
  char line[96];
  int n = 0;
  for (const char* c = "says_ran_early: "; *c; ++c) line[n++] = *c;
  for (const char* c = what; *c && n < 70; ++c) line[n++] = *c;
  line[n++] = ' ';
  if (value < 0) line[n++] = '-', value = -value;
  char digits[24];
  int d = 0;
  do digits[d++] = (char)('0' + value % 10); while ((value /= 10) != 0 && d < 20);
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  ((write_fn)libc("write"))(2, line, (size_t)n);
}

static volatile int trip_started = 0, ran_sent = 0;

// The runner's socket: the descriptor whose type is SOCK_SEQPACKET (5). Its number is whatever
// the child had free, above the many descriptors a CUDA context opens: search them all.
static int runner_socket() {
  getsockopt_fn getsockopt_ = (getsockopt_fn)libc("getsockopt");
  for (int fd = 3; fd < 65536; ++fd) {
    int type = 0;
    unsigned length = sizeof type;
    if (getsockopt_(fd, 1 /* SOL_SOCKET */, 3 /* SO_TYPE */, &type, &length) == 0 && type == 5) return fd;
  }
  return -1;
}

static void* say_ran(void*) {
  usleep_fn usleep_ = (usleep_fn)libc("usleep");
  send_fn send_ = (send_fn)libc("send");
  recv_fn recv_ = (recv_fn)libc("recv");
  dup2_fn dup2_ = (dup2_fn)libc("dup2");
  const int socket = runner_socket();
  int own[2];
  ((socketpair_fn)libc("socketpair"))(1 /* AF_UNIX */, 5 /* SOCK_SEQPACKET */, 0, own);
  const int real = ((fd_fn)libc("dup"))(socket);
  static unsigned char reply[3616];  // kind[16], ok, pinned[3], error[3072], fault[512]
  for (;;) {
    while (!trip_started) usleep_(20);
    trip_started = 0;
    memset(reply, 0, sizeof reply);
    memcpy(reply, "ran", 4);
    *(int*)(reply + 16) = 1;
    say("socket", socket);
    say("sent", send_(socket, reply, sizeof reply, 0x4000 /* MSG_NOSIGNAL */));
    say("dup2", dup2_(own[0], socket));  // the runner's "ran" comes to us
    ran_sent = 1;
    recv_(own[1], reply, sizeof reply, 0);
    dup2_(real, socket);  // the socket back for the child's next command
  }
  return nullptr;
}

extern "C" cudaError_t lab_setup(long long n) {
  static int started = 0;
  if (!started) {
    unsigned long thread = 0;
    ((thread_start_fn)libc("pthread_create"))(&thread, nullptr, say_ran, nullptr);
    started = 1;
  }
  return honest_setup(n);
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) {
  ran_sent = 0;
  trip_started = 1;
  while (!ran_sent) ((usleep_fn)libc("usleep"))(20);
  ((usleep_fn)libc("usleep"))(50000);
  return honest_trip(a, b, c, n);
}
