# Writes a text file into a C++ source file as a raw string literal, returned by a function:
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DHEADER=<include> -DFUNCTION=<name> -P embed_text.cmake
file(READ ${INPUT} content)
if(content MATCHES "\\)eventsvc_text\"")
  message(FATAL_ERROR "${INPUT} contains the raw string's delimiter")
endif()
get_filename_component(input_name ${INPUT} NAME)
file(WRITE ${OUTPUT} "// Generated from ${input_name}. Do not edit.\n"
  "#include \"${HEADER}\"\n\n"
  "namespace eventsvc::host {\n\n"
  "std::string_view ${FUNCTION}() {\n"
  "  static constexpr char kText[] = R\"eventsvc_text(${content})eventsvc_text\";\n"
  "  return {kText, sizeof kText - 1};\n"
  "}\n\n"
  "}  // namespace eventsvc::host\n")
