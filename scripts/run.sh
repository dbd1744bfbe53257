#!/usr/bin/env bash
# The main job: install what is missing, build, then run dlc-opt on an example
# model (an MLP block with RMSNorm) to show parsing, shape inference,
# simplification and precise errors.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DLC_BUILD_DIR:-$root/build}
DLC_SETUP_EXTRAS=${DLC_SETUP_EXTRAS:-1} bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
opt="$build/bin/dlc-opt"
echo
echo "== examples/mlp_block.mlir after --dlg-simplify"
"$opt" --dlg-simplify "$root/examples/mlp_block.mlir"
echo "== the same, generic form (the public contract)"
"$opt" --dlg-simplify --mlir-print-op-generic "$root/examples/mlp_block.mlir" | head -12
echo "== a malformed model gets a located error"
"$opt" "$root/examples/bad_matmul.mlir" || true
echo "== generated op docs: $build/docs/Dialects/DlgDialect.md, DlkDialect.md"
echo "== ONNX from PyTorch, compiled and run by dlc (examples/onnx_demo.py)"
if /usr/bin/python3 -c "import torch, onnx" 2>/dev/null; then
  DLC_LIB="$build/lib/libdlc.so" PYTHONPATH="$root/python" /usr/bin/python3 "$root/examples/onnx_demo.py"
else
  echo "(python3-torch/python3-onnx missing: run with DLC_SETUP_EXTRAS=1)"
fi
