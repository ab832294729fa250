// What the CPU offers, checked at run time, for every kernel's choice of path.
#include "CKernels.h"

int ck_cpu_has_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
