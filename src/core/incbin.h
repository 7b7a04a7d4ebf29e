#pragma once
// A file the build names, linked into the binary's read-only data with the assembler's .incbin, so rooflens needs no
// file at run time (the HTML pages, the datasheet table, the score suite). The file that uses it is compiled alone
// with the path defined by CMake, which rebuilds its object when the file changes (OBJECT_DEPENDS); a NUL byte
// follows the data, outside the view.
#include <cstddef>
#include <string_view>

// Defines NAME_begin / NAME_end around the file at PATH (a string literal).
#define ROOFLENS_INCBIN(NAME, PATH)                       \
  __asm__(".pushsection .rodata." #NAME ", \"a\", @progbits\n" \
          ".balign 16\n"                                  \
          ".globl " #NAME "_begin\n"                      \
          ".hidden " #NAME "_begin\n" #NAME "_begin:\n"   \
          ".incbin \"" PATH "\"\n"                        \
          ".globl " #NAME "_end\n"                        \
          ".hidden " #NAME "_end\n" #NAME "_end:\n"       \
          ".byte 0\n"                                     \
          ".popsection\n");                               \
  extern "C" const char NAME##_begin[];                   \
  extern "C" const char NAME##_end[]

// The data ROOFLENS_INCBIN(NAME, ...) linked in.
#define ROOFLENS_INCBIN_VIEW(NAME) std::string_view(NAME##_begin, static_cast<std::size_t>(NAME##_end - NAME##_begin))
