# Assembles the HTML report's template from web/: every `/*@inline PATH*/` marker in web/report.html is replaced
# by the file web/PATH (CSS, the app's JS, ECharts' minified build), giving one self-contained page that
# src/reporters/html_template.cpp links into the binary. Run as:
#   cmake -DWEB_DIR=<repo>/web -DOUTPUT=<file> [-DPAGE=history.html] -P assemble_report_template.cmake
# PAGE (default report.html) picks another page of web/ (history.html: `rooflens history --html`).
if(NOT PAGE)
  set(PAGE report.html)
endif()
# Refuses an inlined file that could end its <script>/<style> element early or open an HTML comment in it.
file(READ "${WEB_DIR}/${PAGE}" page)
string(REGEX MATCHALL "/\\*@inline [^*]+\\*/" markers "${page}")
foreach(marker IN LISTS markers)
  string(REGEX REPLACE "^/\\*@inline ([^*]+)\\*/$" "\\1" rel "${marker}")
  if(NOT EXISTS "${WEB_DIR}/${rel}")
    message(FATAL_ERROR "web/${PAGE} inlines ${rel}, which does not exist (npm ci in web/ missing?)")
  endif()
  file(READ "${WEB_DIR}/${rel}" content)
  string(TOLOWER "${content}" lower)
  foreach(bad "</script" "</style" "<!--")
    string(FIND "${lower}" "${bad}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "web/${rel} contains '${bad}', which would break out of its element once inlined")
    endif()
  endforeach()
  string(REPLACE "${marker}" "${content}" page "${page}")
endforeach()
string(REGEX MATCHALL "@ROOFLENS_DATA@" data_markers "${page}")
list(LENGTH data_markers count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "the assembled report template must hold @ROOFLENS_DATA@ exactly once (found ${count})")
endif()
file(WRITE "${OUTPUT}.tmp" "${page}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
