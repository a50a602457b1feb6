# Runs in CPack after the files are staged: removes the run path ($ORIGIN/../lib) from every ELF
# file of the packages, which find their libraries in /usr/lib like any Debian package.
file(GLOB_RECURSE staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
foreach(path IN LISTS staged)
  if(IS_SYMLINK "${path}")
    continue()
  endif()
  file(READ "${path}" magic LIMIT 4 HEX)
  if(magic STREQUAL "7f454c46")
    file(RPATH_REMOVE FILE "${path}")
  endif()
endforeach()
