/* The library's interface (not instrumented: no regions). */
int lib_work(int n);
