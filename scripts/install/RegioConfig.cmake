# find_package(Regio) for an installed Regio (scripts/install.sh).
# Gives:
#   Regio::regio       the runtime (libregio.so; the header directory)
#   Regio::regio_static  libregio.a with the system libraries it needs
#   Regio_INSTRUMENT   the `instrument` program of this install
# Relocatable: every path is found from this file's own place.
get_filename_component(_regio_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET Regio::regio)
  add_library(Regio::regio SHARED IMPORTED)
  set_target_properties(Regio::regio PROPERTIES
    IMPORTED_LOCATION "${_regio_prefix}/lib/libregio.so"
    # libregio.so has no SONAME: link it as -lregio so programs record
    # `libregio.so` (found through their rpath), not an absolute path.
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${_regio_prefix}/include")
endif()

if(NOT TARGET Regio::regio_static)
  add_library(Regio::regio_static STATIC IMPORTED)
  set_target_properties(Regio::regio_static PROPERTIES
    IMPORTED_LOCATION "${_regio_prefix}/lib/libregio.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_regio_prefix}/include"
    INTERFACE_LINK_LIBRARIES "pthread;dl;m;rt;gcc_s")
endif()

set(Regio_INSTRUMENT "${_regio_prefix}/bin/instrument")
set(Regio_FOUND TRUE)
unset(_regio_prefix)
