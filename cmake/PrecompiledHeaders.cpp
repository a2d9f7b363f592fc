//===- PrecompiledHeaders.cpp - The source that compiles the shared PCH ---===//
//
// An empty translation unit: CMake compiles the MLIR headers listed in
// mlprog_add_precompiled_headers (cmake/AddMLProg.cmake) into a precompiled
// header for this target, which every mlprog library then reuses.
//
//===----------------------------------------------------------------------===//
