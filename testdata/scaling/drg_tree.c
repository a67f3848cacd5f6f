/* 10^6 distinct DRG paths (issue 16 section 3; scripts/bench_drg_scale.sh).
 *
 * Six levels of ten distinct functions: every function of level l calls
 * each of the ten functions of level l + 1 once, main calls the ten of
 * level 1. So the DRG has 10 + 100 + ... + 10^6 = 1,111,110 nodes below
 * main (1,111,111 with it), each called exactly once, while the program
 * holds only 60 functions. The leaves add one to a volatile sum, so the
 * plain build makes the same calls (noinline) and its run time is the
 * calls alone.
 *
 * Generated (levels L = 6, fan-out F = 10) by the Python snippet in
 * scripts/bench_drg_scale.sh's header; do not edit by hand. */
#include <stdio.h>

static volatile unsigned long sum;

__attribute__((noinline)) static void f6_0(void)
{
    sum += 1;
}

__attribute__((noinline)) static void f6_1(void)
{
    sum += 2;
}

__attribute__((noinline)) static void f6_2(void)
{
    sum += 3;
}

__attribute__((noinline)) static void f6_3(void)
{
    sum += 4;
}

__attribute__((noinline)) static void f6_4(void)
{
    sum += 5;
}

__attribute__((noinline)) static void f6_5(void)
{
    sum += 6;
}

__attribute__((noinline)) static void f6_6(void)
{
    sum += 7;
}

__attribute__((noinline)) static void f6_7(void)
{
    sum += 8;
}

__attribute__((noinline)) static void f6_8(void)
{
    sum += 9;
}

__attribute__((noinline)) static void f6_9(void)
{
    sum += 10;
}

__attribute__((noinline)) static void f5_0(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_1(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_2(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_3(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_4(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_5(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_6(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_7(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_8(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f5_9(void)
{
    f6_0();
    f6_1();
    f6_2();
    f6_3();
    f6_4();
    f6_5();
    f6_6();
    f6_7();
    f6_8();
    f6_9();
}

__attribute__((noinline)) static void f4_0(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_1(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_2(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_3(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_4(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_5(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_6(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_7(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_8(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f4_9(void)
{
    f5_0();
    f5_1();
    f5_2();
    f5_3();
    f5_4();
    f5_5();
    f5_6();
    f5_7();
    f5_8();
    f5_9();
}

__attribute__((noinline)) static void f3_0(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_1(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_2(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_3(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_4(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_5(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_6(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_7(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_8(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f3_9(void)
{
    f4_0();
    f4_1();
    f4_2();
    f4_3();
    f4_4();
    f4_5();
    f4_6();
    f4_7();
    f4_8();
    f4_9();
}

__attribute__((noinline)) static void f2_0(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_1(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_2(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_3(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_4(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_5(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_6(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_7(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_8(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f2_9(void)
{
    f3_0();
    f3_1();
    f3_2();
    f3_3();
    f3_4();
    f3_5();
    f3_6();
    f3_7();
    f3_8();
    f3_9();
}

__attribute__((noinline)) static void f1_0(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_1(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_2(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_3(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_4(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_5(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_6(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_7(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_8(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

__attribute__((noinline)) static void f1_9(void)
{
    f2_0();
    f2_1();
    f2_2();
    f2_3();
    f2_4();
    f2_5();
    f2_6();
    f2_7();
    f2_8();
    f2_9();
}

int main(void)
{
    f1_0();
    f1_1();
    f1_2();
    f1_3();
    f1_4();
    f1_5();
    f1_6();
    f1_7();
    f1_8();
    f1_9();
    printf("sum %lu\n", (unsigned long)sum);
    return 0;
}
