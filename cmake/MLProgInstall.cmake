#===- MLProgInstall.cmake - cmake --install and MLProgConfig.cmake ---------===#
#
# Installs the headers (with the TableGen .td sources and the generated .inc
# files), every add_mlprog_library library (static, with its link interface),
# every add_mlprog_tool tool, and lib/cmake/mlprog/MLProgConfig.cmake, which
# defines the imported targets MLProg::<library> and MLProg::<tool>. The
# dialect library MLProgIR is exported as MLProg::MLProgramDialect.
#
# Included at the end of the top-level CMakeLists.txt, once every target
# exists. A library that links an imported target of another package (e.g.
# Torch) adds the package to the config with
#   set_property(GLOBAL APPEND PROPERTY MLPROG_PACKAGE_DEPENDENCIES "Torch CONFIG")
#
#===------------------------------------------------------------------------===#

include(CMakePackageConfigHelpers)

set(MLPROG_INSTALL_CMAKE_DIR lib/cmake/mlprog)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mlprog
  DESTINATION include
  COMPONENT mlprog-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def"
                 PATTERN "*.proto")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/mlprog
  DESTINATION include
  COMPONENT mlprog-headers
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

# Our libraries plus every non-imported target they link (e.g. generated
# protobuf code), so the export set is closed.
get_property(mlprog_libs GLOBAL PROPERTY MLPROG_LIBS)
get_property(mlprog_tools GLOBAL PROPERTY MLPROG_TOOLS)
set(mlprog_exported ${mlprog_libs})
set(mlprog_queue ${mlprog_libs})
while(mlprog_queue)
  list(POP_FRONT mlprog_queue mlprog_lib)
  get_target_property(mlprog_deps ${mlprog_lib} LINK_LIBRARIES)
  if(NOT mlprog_deps)
    continue()
  endif()
  foreach(mlprog_dep ${mlprog_deps})
    if(NOT TARGET ${mlprog_dep})
      continue()
    endif()
    get_target_property(mlprog_aliased ${mlprog_dep} ALIASED_TARGET)
    if(mlprog_aliased)
      set(mlprog_dep ${mlprog_aliased})
    endif()
    get_target_property(mlprog_imported ${mlprog_dep} IMPORTED)
    if(NOT mlprog_imported AND NOT mlprog_dep IN_LIST mlprog_exported)
      list(APPEND mlprog_exported ${mlprog_dep})
      list(APPEND mlprog_queue ${mlprog_dep})
    endif()
  endforeach()
endwhile()

set_target_properties(MLProgIR PROPERTIES EXPORT_NAME MLProgramDialect)
add_library(MLProg::MLProgramDialect ALIAS MLProgIR)

install(TARGETS ${mlprog_exported} ${mlprog_tools}
  EXPORT MLProgTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin)
install(EXPORT MLProgTargets
  NAMESPACE MLProg::
  DESTINATION ${MLPROG_INSTALL_CMAKE_DIR})

# find_dependency() lines for the packages whose imported targets our
# libraries link.
set(MLPROG_CONFIG_DEPENDENCIES "")
get_property(mlprog_packages GLOBAL PROPERTY MLPROG_PACKAGE_DEPENDENCIES)
if(TARGET MLProgImportONNX)
  # libonnx's exported targets need protobuf::libprotobuf.
  list(PREPEND mlprog_packages "Protobuf" "ONNX CONFIG")
endif()
list(REMOVE_DUPLICATES mlprog_packages)
foreach(mlprog_package ${mlprog_packages})
  string(APPEND MLPROG_CONFIG_DEPENDENCIES "find_dependency(${mlprog_package})\n")
endforeach()

set(MLPROG_INSTALL_INCLUDE_DIR include)
set(MLPROG_INSTALL_BIN_DIR bin)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/MLProgConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/MLProgConfig.cmake
  INSTALL_DESTINATION ${MLPROG_INSTALL_CMAKE_DIR}
  PATH_VARS MLPROG_INSTALL_INCLUDE_DIR MLPROG_INSTALL_BIN_DIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/MLProgConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/MLProgConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/MLProgConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/AddMLProg.cmake
  DESTINATION ${MLPROG_INSTALL_CMAKE_DIR})
