# glimpse_add_plugin(NAME <name> KIND <kind> SOURCES <files...> [LIBRARIES <targets...>] [TESTS <files...>])
#
# Builds one plugin: a MODULE library named <name>.so that exports glimpse_plugin_entry. TESTS: GoogleTest sources
# (PLUGIN_DIR names the folder the plugin is built in; glimpse/testing.hpp and glimpse/testing_gtest.hpp have the
# helpers, and a plugin's tests need nothing else). Out of the tree they are built into <target>_test and registered
# as the CTest test plugin.<name>, when GoogleTest is found and BUILD_TESTING is not OFF. In the tree they join the
# test program glimpse_tests (tests/CMakeLists.txt; not the plugin's LIBRARIES: a test reaches the plugin through its
# library, as a run does); each test is then a CTest test of its own, named Suite.Test.
# In the glimpse tree it lands in the build's plugin folder and is installed beside the CLI's;
# out of tree it lands in the caller's build folder (point GLIMPSE_PLUGIN_PATH at it).
set(GLIMPSE_PLUGIN_KINDS learner oracle query_rule metric data_source transform)

# The function below uses if(IN_LIST) (policy CMP0057): recorded with it, whatever the caller's own policies.
cmake_policy(PUSH)
cmake_policy(SET CMP0057 NEW)

# glimpse_plugin_compile_settings(<target>): how every plugin's code is compiled. In the tree (glimpse_framework is
# a real target; glimpse::framework is also defined, as its alias) it gets the project's warnings and arithmetic flags
# like the core; out of tree, the installed imported target and the arithmetic flags the installed glimpse was built
# with (GLIMPSE_ARCH_OPTIONS, from glimpseConfig.cmake), so that a plugin built against the reference build rounds as
# the in-tree ones do. Hidden symbols but the entry point, position-independent code. glimpse_add_plugin applies it to
# each plugin, and plugins/CMakeLists.txt to the code the in-tree plugins share (their precompiled header must be
# compiled with their flags to be reused, their static library to be linked into them).
function(glimpse_plugin_compile_settings target)
  if(TARGET glimpse_framework)
    # BUILD_INTERFACE: a static library's private dependencies are exported with it; these are not installed.
    target_link_libraries(${target} PRIVATE glimpse_framework $<BUILD_INTERFACE:glimpse_warnings>
      $<BUILD_INTERFACE:glimpse_arch>)
  else()
    target_link_libraries(${target} PRIVATE glimpse::framework)
    target_compile_options(${target} PRIVATE ${GLIMPSE_ARCH_OPTIONS})
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

function(glimpse_add_plugin)
  cmake_parse_arguments(ARG "" "NAME;KIND" "SOURCES;LIBRARIES;TESTS" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "glimpse_add_plugin: NAME and SOURCES are required")
  endif()
  if(NOT ARG_KIND IN_LIST GLIMPSE_PLUGIN_KINDS)
    message(FATAL_ERROR "glimpse_add_plugin(${ARG_NAME}): KIND must be one of ${GLIMPSE_PLUGIN_KINDS}, got '${ARG_KIND}'")
  endif()
  if(NOT ARG_NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "glimpse_add_plugin: NAME must be lower_snake_case, got '${ARG_NAME}'")
  endif()
  set(target glimpse_plugin_${ARG_NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  glimpse_plugin_compile_settings(${target})
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${ARG_NAME})
  if(DEFINED GLIMPSE_PLUGIN_BUILD_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${GLIMPSE_PLUGIN_BUILD_DIR}
      INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${target} LIBRARY DESTINATION ${GLIMPSE_PLUGIN_INSTALL_DIR})
    set_property(GLOBAL APPEND PROPERTY GLIMPSE_PLUGIN_TARGETS ${target})
  endif()
  if(ARG_TESTS AND DEFINED GLIMPSE_PLUGIN_BUILD_DIR)
    list(TRANSFORM ARG_TESTS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
    set_property(GLOBAL APPEND PROPERTY GLIMPSE_PLUGIN_TEST_SOURCES ${ARG_TESTS})
  elseif(ARG_TESTS AND (NOT DEFINED BUILD_TESTING OR BUILD_TESTING))
    find_package(GTest QUIET)
    if(GTest_FOUND)
      add_executable(${target}_test ${ARG_TESTS})
      if(TARGET glimpse_framework)
        target_link_libraries(${target}_test PRIVATE glimpse_testing glimpse_warnings glimpse_arch ${ARG_LIBRARIES})
      else()
        target_link_libraries(${target}_test PRIVATE glimpse::testing ${ARG_LIBRARIES})
        target_compile_options(${target}_test PRIVATE ${GLIMPSE_ARCH_OPTIONS})
      endif()
      target_link_libraries(${target}_test PRIVATE GTest::gtest_main)
      target_compile_definitions(${target}_test PRIVATE PLUGIN_DIR="$<TARGET_FILE_DIR:${target}>")
      add_dependencies(${target}_test ${target})
      add_test(NAME plugin.${ARG_NAME} COMMAND ${target}_test)
    else()
      message(STATUS "glimpse_add_plugin(${ARG_NAME}): GoogleTest not found, its TESTS are not built")
    endif()
  endif()
endfunction()
cmake_policy(POP)
