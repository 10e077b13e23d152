# Writes the Python twin of framework/src/trace_schema.hpp: one class per C++ namespace, one attribute per name.
#   cmake -DHEADER=framework/src/trace_schema.hpp -DOUTPUT=build/lib/python/glimpse/trace_schema.py -P this file
# It reads only lines of the form `inline constexpr char NAME[] = "text";`,
# `inline constexpr const char* NAME[] = {space::name, ...};`, `namespace NAME {` and `}  // namespace NAME`, as the
# header promises.
file(STRINGS "${HEADER}" lines)
set(out "\"\"\"The names of a glimpse trace file (docs/trace-schema.md), generated at build time from\n")
string(APPEND out "framework/src/trace_schema.hpp: do not edit. Each class is a namespace of the header.\"\"\"\n")
set(indent "")
foreach(line IN LISTS lines)
  if(line MATCHES "^namespace glimpse::schema {")
    continue()
  elseif(line MATCHES "^namespace ([a-z_]+) {")
    string(APPEND out "\n\nclass ${CMAKE_MATCH_1}:\n")
    set(indent "    ")
  elseif(line MATCHES "^}  // namespace [a-z_]+$")
    set(indent "")
  elseif(line MATCHES "^inline constexpr char ([a-z_]+)\\[\\] = \"([^\"]*)\";")
    if(indent STREQUAL "")
      string(APPEND out "\n")
    endif()
    string(APPEND out "${indent}${CMAKE_MATCH_1} = \"${CMAKE_MATCH_2}\"\n")
  elseif(line MATCHES "^inline constexpr const char\\* ([a-z_]+)\\[\\] = {([a-z_:, ]*)};")
    # A list of names, at module level after the classes: `space::name` becomes `space.name`, in a tuple.
    set(list_name "${CMAKE_MATCH_1}")
    string(REPLACE "::" "." items "${CMAKE_MATCH_2}")
    string(APPEND out "\n\n${list_name} = (${items},)\n")
  endif()
endforeach()
file(WRITE "${OUTPUT}.new" "${out}")
file(COPY_FILE "${OUTPUT}.new" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.new")
