/* The f32 FMA throughput of one core, in GFLOP/s: 16 independent chains of
 * vector FMAs (zmm with AVX-512, else ymm), so that neither latency nor
 * anything but the FMA pipes bound it. benchmarks/run.py compiles it with
 * `cc -O2 -march=native` and runs it pinned to one core, for its sgemm
 * table's "% of peak" column. */
#include <stdio.h>
#include <time.h>

#ifdef __AVX512F__
#define VEC "zmm"
#define LANES 16
#else
#define VEC "ymm"
#define LANES 8
#endif

#define FMA(r) "vfmadd231ps %%" VEC "1, %%" VEC "0, %%" VEC #r "\n"

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  const long iterations = 50000000;
  long n = iterations;
  double start = seconds();
  __asm__ volatile(
      "vxorps %%" VEC "0, %%" VEC "0, %%" VEC "0\n"
      "vxorps %%" VEC "1, %%" VEC "1, %%" VEC "1\n"
      "1:\n" FMA(2) FMA(3) FMA(4) FMA(5) FMA(6) FMA(7) FMA(8) FMA(9) FMA(10)
          FMA(11) FMA(12) FMA(13) FMA(14) FMA(15) "dec %0\n"
      "jnz 1b\n"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
  double elapsed = seconds() - start;
  /* 14 FMAs of LANES lanes, 2 flops each, per iteration. */
  printf("%.1f\n", iterations * 14.0 * LANES * 2 / elapsed / 1e9);
  return 0;
}
