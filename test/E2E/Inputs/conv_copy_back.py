"""The direct conv's copy back to NCHW (schedule/transpose_tile.h,
dlcScriptConvCopyBackTile) against NumPy, with its fused epilogue: rows
split into whole 16-pixel blocks and a narrower rest (Wo = 56, 20, 30,
33), rows of exactly one vector (no split), rows narrower than a vector,
channel panels of 8 (the older blocks), bias, batch norm, residual add and
relu, batches of 2 and 3, and non-square outputs. Both thread counts: the
parallel tiles split the rows and panels differently."""
from conv_cases import case


case("1x1 64->256 56x56 bias residual relu (48 + 8)", (1, 64, 56, 56), 256, 1,
     bias=True, residual=True, relu=True)
case("3x3 32->48 20x20 residual relu batch 2 (16 + 4)", (2, 32, 20, 20), 48, 3,
     residual=True, relu=True)
case("1x1 64->64 30x30 batch norm residual relu batch 2 (16 + 14)", (2, 64, 30, 30), 64, 1,
     bn=True, residual=True, relu=True)
case("3x3 16->32 12x33 bias relu batch 3 (32 + 1)", (3, 16, 12, 33), 32, 3, bias=True,
     relu=True)
case("1x1 16->32 16x16 bias (one block a row)", (1, 16, 16, 16), 32, 1, bias=True)
case("1x1 64->128 7x7 residual (rows narrower than a vector)", (1, 64, 7, 7), 128, 1,
     residual=True)
case("3x3 8->40 18x18 bias residual relu (8-channel panels)", (1, 8, 18, 18), 40, 3,
     bias=True, residual=True, relu=True)
