#===- AddMLProg.cmake - Thin wrappers for mlprog targets -------------------===#
#
# Every mlprog library links the MLIR and LLVM shared libraries (Debian ships
# libMLIR.so/libLLVM.so; static linking is slow on small machines).
#
#===------------------------------------------------------------------------===#

# add_mlprog_library(name src... [DEPENDS tgt...] [LINK_LIBS lib...])
# A static library of mlprog code. DEPENDS names TableGen targets whose
# generated headers the sources include.
function(add_mlprog_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  set_property(GLOBAL APPEND PROPERTY MLPROG_LIBS ${name})
endfunction()

# add_mlprog_tool(name src... [LINK_LIBS lib...])
function(add_mlprog_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()
