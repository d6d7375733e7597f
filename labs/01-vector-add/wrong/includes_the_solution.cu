// expect: :4: #include is not allowed in a kernel file
// Includes lab 1's model solution by a path relative to this file: a compiler that opened it would compile the solution in place of the student's work. The kernel-text rules refuse the #include, in the parent, before anything is compiled and without a GPU.
// (The kernel below is never compiled: the #include above it is what this file is about.)
#include "../solution/vector_add.cu"
