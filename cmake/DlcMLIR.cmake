# Helpers for linking against Debian's MLIR without a second static copy.
#
# The MLIR C API ships only as static archives whose exported targets drag in
# the static C++ MLIR libraries. We never link those targets: we take the
# archive files themselves and whole-archive them into libdlc.so, which links
# the shared MLIR and LLVM libraries (see MLIR22-NOTES.md).

function(dlc_capi_archives out)
  set(files)
  foreach(name IN LISTS ARGN)
    get_target_property(loc ${name} IMPORTED_LOCATION_RELWITHDEBINFO)
    if(NOT loc)
      get_target_property(loc ${name} LOCATION)
    endif()
    if(NOT EXISTS "${loc}")
      message(FATAL_ERROR "MLIR C API archive for ${name} not found (${loc})")
    endif()
    list(APPEND files "${loc}")
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
