# SPDX-License-Identifier: MIT
# What the shell benchmarks share (sourced: . bench/lib.sh): arithmetic on
# the seconds /usr/bin/time prints.
# faster A B: true when A < B.
faster() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# ratio A B: "A/Bx" with two decimals, "-" when B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
# add A B: A + B with two decimals.
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
