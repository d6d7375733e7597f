// expect: pragma_include.cu:3: _Pragma: not allowed in a kernel file
// A #pragma the text does not show, through _Pragma: GCC's "dependency" pragma opens the named file (here lab 6's model solution, through the grader's working folder) and compares its date, and other pragmas of other compilers open files or change how the file is compiled. The kernel-text rules refuse _Pragma (only #pragma unroll and #pragma nounroll are allowed), in the parent, without a GPU.
_Pragma("GCC dependency \"/proc/self/cwd/labs/06-pycuda-vector-add/solution/vector_add.cu\"")

extern "C" __global__ void lab_vector_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
