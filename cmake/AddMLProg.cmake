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
