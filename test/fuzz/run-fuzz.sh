#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run-fuzz.sh [SECONDS]: builds the libFuzzer targets with clang (ASan +
# UBSan + LeakSanitizer), the dat.conf parser's and the socket CM's message
# parser's (providers/scm/wire.c), and runs each for SECONDS (default 60)
# from its seed corpus.  New inputs go to build/fuzz/, not into the tree.
# Exits non-zero on any crash, leak or sanitizer report.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
CLANG=${CLANG:-clang}

scripts/deps.sh clang libclang-rt-14-dev

out=build/fuzz
mkdir -p "$out/corpus"
"$CLANG" -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	test/fuzz/fuzz_conf.c registry/conf.c -o "$out/fuzz_conf"
echo "fuzzing the dat.conf parser for ${secs}s"
"$out/fuzz_conf" -max_total_time="$secs" -detect_leaks=1 -max_len=8192 \
	-artifact_prefix="$out/" "$out/corpus" test/fuzz/corpus
mkdir -p "$out/corpus-scm"
"$CLANG" -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	test/fuzz/fuzz_scm_wire.c providers/scm/wire.c -o "$out/fuzz_scm_wire"
echo "fuzzing the socket CM's message parser for ${secs}s"
"$out/fuzz_scm_wire" -max_total_time="$secs" -detect_leaks=1 -max_len=1024 \
	-artifact_prefix="$out/scm-" "$out/corpus-scm" test/fuzz/corpus-scm
