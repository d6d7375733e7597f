// expect: #line is not allowed
// Reads a file of the grading machine through a compile error: the host compiler (gcc, under nvcc) prints the source line of an error from the file a #line names, so the error below would show the student the first line of /etc/passwd (or of any file the grader can read, its secret's included). The rules on the text refuse #line (and # 12 "file" line markers), in the parent, without a GPU.
#include <cuda_runtime.h>

#line 1 "/etc/passwd"
int leaked = not_declared_here;
