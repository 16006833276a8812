# The bundled data an installed program reads (core's resources.hpp): PREFIX/share/quantfront
# holds catalog/, calibration/, schema/ and sessions/, beside PREFIX/bin.
include(GNUInstallDirs)
function(qf_install_data component)
  get_filename_component(root ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../resources ABSOLUTE)
  install(DIRECTORY ${root}/catalog ${root}/calibration ${root}/schema ${root}/sessions
          DESTINATION ${CMAKE_INSTALL_DATADIR}/quantfront COMPONENT ${component})
endfunction()

# A man page, installed compressed as Debian's policy asks (gzip -9n: no name or time stamp).
function(qf_install_man page component)
  get_filename_component(name ${page} NAME)
  set(dir ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${page} DESTINATION ${dir} COMPONENT ${component})
  install(CODE "execute_process(COMMAND gzip -9nf \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${dir}/${name}\" COMMAND_ERROR_IS_FATAL ANY)"
          COMPONENT ${component})
endfunction()
