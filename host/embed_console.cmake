# Writes every file under a directory (the built console) into a C++ source as byte arrays, listed
# by their path relative to it:
#   cmake -DDIR=<dir> -DOUTPUT=<file.cpp> -P embed_console.cmake
file(GLOB_RECURSE files RELATIVE ${DIR} ${DIR}/*)
list(SORT files)
if(NOT files)
  message(FATAL_ERROR "nothing was built into ${DIR}")
endif()
set(arrays "")
set(table "")
set(index 0)
foreach(name IN LISTS files)
  file(READ ${DIR}/${name} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND arrays "const unsigned char kFile${index}[] = {${bytes}};\n")
  string(APPEND table "    {\"${name}\", {reinterpret_cast<const char*>(kFile${index}), sizeof kFile${index}}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from the built console. Do not edit.\n"
  "#include \"console/console_assets.hpp\"\n\n"
  "namespace eventsvc::host {\n\nnamespace {\n\n"
  "${arrays}\n"
  "const ConsoleAsset kAssets[] = {\n${table}};\n\n"
  "}  // namespace\n\n"
  "std::span<const ConsoleAsset> console_assets() { return kAssets; }\n\n"
  "}  // namespace eventsvc::host\n")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
