/* Test-only passes, registered by dlc-opt (never by dlcRegisterAllPasses). */
#ifndef DLC_PASSES_TEST_TEST_PASSES_H
#define DLC_PASSES_TEST_TEST_PASSES_H

#include "dlc-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const DlcPassDescriptor dlcTestPassOptionsPass;

MLIR_CAPI_EXPORTED void dlcRegisterTestPasses(void);

#ifdef __cplusplus
}
#endif

#endif
