// RUN: mlprog-opt %s --split-input-file --verify-diagnostics --mlprog-gpu-check-ptx | FileCheck %s

// PTX without libdevice calls passes unchanged.
// CHECK: gpu.binary @clean [#gpu.object<#nvvm.target<chip = "sm_90">, "ret;">]
gpu.binary @clean [#gpu.object<#nvvm.target<chip = "sm_90">, "ret;">]

// -----

// Each libdevice function is named once.
// expected-error @+1 {{kernels call libdevice functions (__nv_exp), which mlprog cannot link; the math operation has no expansion for this element type}}
gpu.binary @calls [#gpu.object<#nvvm.target<chip = "sm_90">, "call.uni (retval0), __nv_exp, (param0);\0Acall.uni (retval0), __nv_exp, (param0);">]
