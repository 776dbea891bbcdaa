# SPDX-License-Identifier: MIT
# cmake -DIN=div.cl -DOUT=opencl_div_cl.h -P embed.cmake: writes IN as the
# NUL-terminated byte array `opencl_div_cl` (the source opencl.c builds).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "(..)" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from ${IN} by embed.cmake; do not edit. */\n"
  "static const char opencl_div_cl[] = {\n${bytes}0x00};\n")
