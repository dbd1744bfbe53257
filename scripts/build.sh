#!/usr/bin/env bash
# Configures (once) and builds dlc into ${DLC_BUILD_DIR:-build} with Ninja;
# DLC_CMAKE_ARGS adds configure options (e.g. -DDLC_SANITIZE=address,undefined).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DLC_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086  # DLC_CMAKE_ARGS is a list of options
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${DLC_CMAKE_ARGS:-}
fi
ninja -C "$build"
