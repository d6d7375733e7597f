// expect: :4: #include is not allowed in a kernel file
// Includes lab 4's model solution through the grader's own working folder (/proc/self/cwd is the checkout where `lab grade` runs): the solution's 100 points for nothing. A batch grade could include a classmate's file the same way, and a compile error would echo any readable file. The kernel-text rules refuse the #include before anything is compiled, without a GPU.
// (Nothing else is in this file: the solution's kernel would have come with the #include.)
#include "/proc/self/cwd/labs/04-tiled-matmul/solution/matmul.cu"
