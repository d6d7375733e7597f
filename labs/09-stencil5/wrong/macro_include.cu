// expect: macro_include.cu:5: #include is not allowed in a kernel file
// An #include the text hides as well as it can: the path built by a macro, and the directive's name split from its '#' by a line splice (the compiler joins the two lines before it reads a directive). The model solution would be compiled in place of the student's work. The kernel-text rules read the text as the compiler does (splices joined, %: read as #) and refuse the directive itself, whatever follows it.
#define STR(x) #x
#define MODEL STR(/proc/self/cwd/labs/09-stencil5/solution/stencil5.cu)
#\
include MODEL
