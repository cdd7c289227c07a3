#!/usr/bin/env bash
# gotags.sh [GO] — the build tags for the ballot chaincode: "gmp" when cgo is on
# and a C program including gmp.h links with -lgmp (Debian: libgmp-dev), else
# nothing (math/big). Proof verification handles only public values, so GMP's
# non-constant-time arithmetic is safe there (chaincode/README.md). Used by
# network/net.sh; chaincode/chaincode.mk probes the same way.
set -euo pipefail
GO=${1:-go}
[[ $("$GO" env CGO_ENABLED) == 1 ]] || exit 0
cc=$("$GO" env CC)
if printf '#include <gmp.h>\nint main(void){mpz_t x; mpz_init_set_ui(x, 7); mpz_clear(x); return 0;}\n' |
	$cc -x c - -o /dev/null -lgmp >/dev/null 2>&1; then
	echo gmp
fi
