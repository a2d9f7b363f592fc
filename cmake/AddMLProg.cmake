#===- AddMLProg.cmake - Thin wrappers for mlprog targets -------------------===#
#
# Every mlprog library links the MLIR and LLVM shared libraries (Debian ships
# libMLIR.so/libLLVM.so; static linking is slow on small machines).
#
# Libraries and tools made here are installed by `cmake --install` and
# exported as MLProg::<name> (see MLProgInstall.cmake); inside the build the
# same MLProg::<name> spellings exist as aliases.
#
#===------------------------------------------------------------------------===#

# add_mlprog_library(name src... [DEPENDS tgt...] [LINK_LIBS lib...])
# A static library of mlprog code. DEPENDS names TableGen targets whose
# generated headers the sources include.
function(add_mlprog_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  add_library(MLProg::${name} ALIAS ${name})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  # Users of the installed package get our headers (and generated .inc).
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY MLPROG_LIBS ${name})
  if(TARGET MLProgPrecompiledHeaders)
    target_precompile_headers(${name} REUSE_FROM MLProgPrecompiledHeaders)
  endif()
endfunction()

# mlprog_add_precompiled_headers()
# One precompiled header of the MLIR/LLVM headers most of our sources include
# (the dialects the importers and pipelines build, patterns, passes), shared
# by every mlprog library (REUSE_FROM). Parsing these headers is most of a
# source's compile time with GCC: a clean build took 650 s with it against
# 1141 s without on 2 cores (DEVELOPERS.md). Only Debian's MLIR headers go
# in, never ours, so editing an mlprog header does not rebuild the
# precompiled header; the libraries are position-independent, as the header
# is compiled. A source whose flags make GCC reject it (-Winvalid-pch) is
# compiled from the headers as usual.
function(mlprog_add_precompiled_headers)
  if(NOT MLPROG_PRECOMPILED_HEADERS)
    return()
  endif()
  add_library(MLProgPrecompiledHeaders OBJECT
    ${PROJECT_SOURCE_DIR}/cmake/PrecompiledHeaders.cpp)
  set_target_properties(MLProgPrecompiledHeaders PROPERTIES
    POSITION_INDEPENDENT_CODE ON)
  target_precompile_headers(MLProgPrecompiledHeaders PRIVATE
    <mlir/Dialect/Affine/IR/AffineOps.h>
    <mlir/Dialect/Arith/IR/Arith.h>
    <mlir/Dialect/Arith/Utils/Utils.h>
    <mlir/Dialect/Bufferization/IR/Bufferization.h>
    <mlir/Dialect/Func/IR/FuncOps.h>
    <mlir/Dialect/LLVMIR/LLVMDialect.h>
    <mlir/Dialect/Linalg/IR/Linalg.h>
    <mlir/Dialect/Math/IR/Math.h>
    <mlir/Dialect/MemRef/IR/MemRef.h>
    <mlir/Dialect/SCF/IR/SCF.h>
    <mlir/Dialect/Tensor/IR/Tensor.h>
    <mlir/Dialect/Utils/StaticValueUtils.h>
    <mlir/Dialect/Vector/IR/VectorOps.h>
    <mlir/IR/Builders.h>
    <mlir/IR/BuiltinOps.h>
    <mlir/IR/Matchers.h>
    <mlir/IR/PatternMatch.h>
    <mlir/Pass/Pass.h>)
endfunction()

# add_mlprog_tool(name src... [LINK_LIBS lib...])
function(add_mlprog_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
  # Installed tools find libMLIR.so/libLLVM.so where Debian keeps them, and
  # libtorch where the TorchScript importer was linked against it.
  set_target_properties(${name} PROPERTIES
    INSTALL_RPATH "${LLVM_LIBRARY_DIR};${MLPROG_TORCH_LIBRARY_DIR}")
  set_property(GLOBAL APPEND PROPERTY MLPROG_TOOLS ${name})
endfunction()
