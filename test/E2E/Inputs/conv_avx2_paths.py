"""Convs compiled as AVX2 code (on any host with AVX2) against NumPy, on
each path the AVX2 cost model sends them down (schedule/conv_direct.c):
rows of 7 and 14 pixels as a GEMM over the flattened pixels (49 = 8 x 6 +
1 and 196 rows: tiles and a remainder), a batch of 14x14 images direct
with one-vector panels (7 x 8 tiles), 24 output channels at 56x56 in 8 x 8
tiles, and rows of 28 direct in 4 x 16 tiles, and a 1x1 conv on 1024 channels whose
GEMM reads its im2col rows (4 KiB apart) through a padded copy; with their fused
epilogues, at 1 and 2 threads."""
from conv_cases import case

case("3x3 32->64 7x7 bias relu (GEMM, 49 pixels)", (1, 32, 7, 7), 64, 3, bias=True,
     relu=True, target="avx2")
case("1x1 64->32 14x14 batch norm residual relu (GEMM, 196 pixels)", (1, 64, 14, 14), 32, 1,
     bn=True, residual=True, relu=True, target="avx2")
case("3x3 16->32 14x14 batch 2 bias relu (direct, 7 x 8)", (2, 16, 14, 14), 32, 3, bias=True,
     relu=True, target="avx2")
case("1x1 32->24 56x56 bias (direct, 8 x 8)", (1, 32, 56, 56), 24, 1, bias=True,
     target="avx2")
case("3x3 16->32 28x28 residual relu (direct, 4 x 16)", (1, 16, 28, 28), 32, 3, residual=True,
     relu=True, target="avx2")
case("1x1 1024->32 7x7 bias relu (GEMM, 49 pixels, A rows padded)", (1, 1024, 7, 7), 32, 1,
     bias=True, relu=True, target="avx2")
