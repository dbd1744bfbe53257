/*===-- dlc-test/TestPasses.h - Passes that only tests run --------*- C -*-===*\
|*                                                                            *|
|* Test-only passes, in their own library (DlcTestPasses, passes/test/)     *|
|* linked only into dlc-opt: never part of libdlc.so, never registered by   *|
|* dlcRegisterAllPasses.                                                     *|
\*===----------------------------------------------------------------------===*/
#ifndef DLC_TEST_TESTPASSES_H
#define DLC_TEST_TESTPASSES_H

#include "dlc-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const DlcPassDescriptor dlcTestPassOptionsPass;

void dlcRegisterTestPasses(void);

#ifdef __cplusplus
}
#endif

#endif
