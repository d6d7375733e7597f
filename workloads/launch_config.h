/* Launch shapes that kernels are written for. Shared by the kernel text (nvcc and NVRTC) and the
   host code of every layer that launches those kernels, so the numbers exist once. */
#ifndef LB_LAUNCH_CONFIG_H
#define LB_LAUNCH_CONFIG_H

/* Threads per block of the elementwise kernels and reduce; blocks per SM of reduce's grid-stride
   loop (4 ran faster and quieter than 8 or 16 for a grid-stride vector add on an H200). */
#define LB_BLOCK 256
#define LB_BLOCKS_PER_SM 4

/* reduce_sum: float4 loads each thread issues before it adds any of them (workloads/reduce/kernels.cu). */
#define LB_REDUCE_UNROLL 4

/* matmul_tiled: a 128x128 tile of C per block of 128 threads (4 warps of 64x64, 8x16 results a
   thread; workloads/matmul/kernels.cu). K is split over gridDim.z blocks per tile only where
   tiles x splits <= LB_MM_SPLIT_PARTS, the parts the kernel's workspace holds (64 KiB each: 20 MiB
   of device memory in each module that holds the kernel). */
#define LB_MM_BM 128
#define LB_MM_BN 128
#define LB_MM_THREADS 128
#define LB_MM_SPLIT_PARTS 320

/* transpose: one LB_TR_TILE x LB_TR_TILE tile of A per block of LB_TR_BLOCK_X x LB_TR_ROWS threads:
   threadIdx.x a float4 of a tile row (LB_TR_BLOCK_X = LB_TR_TILE / 4), threadIdx.y the rows, each
   thread moving LB_TR_TILE / LB_TR_ROWS float4s (workloads/transpose/kernels.cu says why this
   shape). Grid: (ceil(N / TILE), ceil(M / TILE)). Plain numbers: the Python layers read them. */
#define LB_TR_TILE 64
#define LB_TR_BLOCK_X 16
#define LB_TR_ROWS 8

#endif
