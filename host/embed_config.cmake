# Writes the default config into a C++ source file as a raw string literal.
file(READ ${INPUT} content)
file(WRITE ${OUTPUT} "// Generated from config/eventsvc.yaml. Do not edit.\n"
  "#include \"config/host_config.hpp\"\n\n"
  "namespace eventsvc::host {\n\n"
  "std::string_view embedded_default_config() {\n"
  "  static constexpr char kConfig[] = R\"eventsvc_yaml(${content})eventsvc_yaml\";\n"
  "  return {kConfig, sizeof kConfig - 1};\n"
  "}\n\n"
  "}  // namespace eventsvc::host\n")
