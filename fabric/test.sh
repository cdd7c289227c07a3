# fabric/test.sh — sourced by fabric/build.sh: the upstream unit tests of the
# patched tree, the in-tree benchmarks, and the patch workspace. Uses the
# functions and variables build.sh defines.

# Upstream packages whose unit tests run on the patched tree. Every package a
# patch touches is here, plus the in-tree fabvote test files (fabric/testdata/
# overlay). Each entry: "<package>;<-run regexp or empty>;<-skip regexp or
# empty>;<race or empty>[;<flags for the test binary>]". "race" runs the
# package with -race: the packages where simulations and commits of the
# commit gate (O-III) meet.
# docs/FORK.md explains what is left out and why. The packages of a switch
# mode that share their flags run in one go test, two at a time.
FABRIC_TEST_PKGS=(
	"./bccsp/sw;;;"
	"./protoutil;;;"
	"./common/util;;;"
	"./core/endorser;;;race"
	"./core/ledger;;;"
	"./core/ledger/kvledger/txmgmt/txmgr;;TestTxSimulatorUnsupportedTxCouchDBQuery;race"
	"./core/ledger/kvledger/txmgmt/privacyenabledstate;;CouchDB;race"
	# The chaincode package's own tests: the ginkgo suite (CheckInvocation,
	# the handler), the framework test that invokes through a real ledger,
	# and the fabvote tests of the handler's hooks.
	"./core/chaincode;^(TestChaincode|TestCCFramework|TestFabvote.*)$;;race"
	# The ledger as a whole (ledger, block store, state DB, txmgr together).
	"./core/ledger/kvledger;;CouchDB;"
	# The ledger's LevelDB wrapper, whose options O-VII sets.
	"./common/ledger/util/leveldbhelper;;;"
	# The security patches (0010-0017) and the dependency floors of patch
	# 0001: the packages they touch and the gRPC/HTTP/2 users of the raised
	# modules, and the users of the block checks of patch 0011.
	"./internal/pkg/comm;;;"
	"./internal/pkg/gateway;;;"
	"./internal/peer/node;;;"
	"./internal/peer/chaincode;;;"
	"./core/chaincode/accesscontrol;;;"
	"./core/scc/qscc;;;"
	"./common/flogging/fabenc;;;"
	"./internal/peer/gossip;;;"
	"./internal/peer/version;;;"
	"./gossip/util;;;"
	"./gossip/comm;;;"
	"./msp;;;"
	"./common/grpclogging;;;"
	"./common/grpcmetrics;;;"
	"./orderer/common/cluster;;;"
	"./orderer/common/onboarding;;;"
	"./orderer/common/follower;;;"
	"./internal/pkg/peer/blocksprovider;;;"
	"./core/deliverservice;;;"
	"./orderer/common/metadata;;;"
	# Its spec "can remove leader by retrying even if leadership transfer
	# fails at first" times out in many of the suite's runs here, on an idle
	# machine too (docs/FORK.md); ginkgo runs a failed spec up to 5 times and
	# reports one that passed late as flaked.
	"./orderer/consensus/etcdraft;;;;-ginkgo.flake-attempts=5"
	# fabvote packages that import Fabric (fabric/intree): the ballot
	# validation plugin (O-IV).
	"./fabvote/ballotvscc;;;race"
	# The stages of a block's commit that decode each transaction, whose
	# decodes the decode memo (O-VI) shares (the memo itself runs under
	# -race in make test-go). gossip/privdata's TestCoordinatorMetrics fails
	# with every switch off too (it reads a fake histogram's first
	# observation before one is made).
	"./core/committer/txvalidator/v20/...;;;"
	"./core/common/validation/...;;;"
	"./core/handlers/validation/builtin/v20/...;;;"
	"./core/ledger/kvledger/txmgmt/validation;;CouchDB|TestValidatorBulkLoadingOfCache;"
	"./gossip/privdata;;TestCoordinatorMetrics;"
)

# Switch modes: every package runs in the default mode of every switch, and
# again with each switch that affects it set to its other value (its check
# value, if it has one). Which packages a switch affects is known here
# only; its name and values are fabric/switches' Table's, and that
# package's TestFabricTestModes fails when a mode and the table differ.
FABRIC_TEST_MODES=(
	"FABVOTE_SHA256=stdlib FABVOTE_ECDSA=go FABVOTE_COMMIT_GATE=locked|all"
	"FABVOTE_SHA256=simd|./bccsp/sw ./protoutil ./common/util ./core/endorser"
	"FABVOTE_ECDSA=openssl|./bccsp/sw ./core/endorser"
	"FABVOTE_COMMIT_GATE=lockless|./core/ledger/kvledger/txmgmt/txmgr ./core/ledger/kvledger ./core/endorser ./core/chaincode"
	"FABVOTE_SIG_MEMO=on|./bccsp/sw ./msp ./core/endorser ./internal/pkg/gateway"
	"FABVOTE_LEVELDB=tuned|./common/ledger/util/leveldbhelper ./core/ledger/kvledger/txmgmt/privacyenabledstate ./core/ledger/kvledger"
	# check: shared like on, and every shared message compared with a fresh
	# decode, so a stage that wrote to a message it shares fails its tests.
	"FABVOTE_DECODE_MEMO=check|./protoutil ./fabvote/ballotvscc ./core/committer/txvalidator/v20/... ./core/common/validation/... ./core/handlers/validation/builtin/v20/... ./core/ledger/kvledger/txmgmt/validation ./gossip/privdata"
)

# The ECDSA semantics test (fabric/testdata/overlay/bccsp/sw) also runs on
# the stock tree: passing there and on the patched tree in both ECDSA modes
# and with the signature memo on shows that the fork's answers and errors
# are stock Fabric's.
STOCK_SEMANTICS_TEST=bccsp/sw/fabvote_ecdsa_semantics_test.go

FABRIC_TEST_TIMEOUT=${FABRIC_TEST_TIMEOUT:-20m}
# Some upstream tests are timing-sensitive on a loaded 2-core machine (for
# example etcdraft's "can remove leader by retrying even if leadership
# transfer fails at first", a 10 s wait). A package that fails runs once
# more (FABRIC_TEST_RETRY=0 turns that off); one that then passes is listed
# as flaky at the end, one that fails again fails the run.
FABRIC_TEST_RETRY=${FABRIC_TEST_RETRY:-1}

# run_pkg_test TREE ENVS ARGS...: go test in TREE with the switches ENVS.
run_pkg_test() {
	local tree=$1 envs=$2
	shift 2
	# shellcheck disable=SC2086
	(cd "$tree" && env $envs "$GO" test "$@")
}

# test_args ENTRY: the go test flags of a FABRIC_TEST_PKGS entry (before
# the packages), one per line.
test_args() {
	local pkg run skip race extra
	IFS=";" read -r pkg run skip race extra <<<"$1"
	printf '%s\n' -count=1 -timeout "$FABRIC_TEST_TIMEOUT"
	[ -z "$run" ] || printf '%s\n' -run "$run"
	[ -z "$skip" ] || printf '%s\n' -skip "$skip"
	[ -z "$race" ] || printf '%s\n' -race
}

# run_group TREE ENVS KEY PKGS...: the packages that share the flags KEY
# ("run;skip;race;extra") in one go test, which builds and runs two at a
# time on two cores; a package that fails runs once more on its own.
# Appends to the caller's flaky array and sets its failed.
run_group() {
	local tree=$1 envs=$2 key=$3 out p again=() args extra
	shift 3
	mapfile -t args < <(test_args "pkg;$key")
	IFS=";" read -r _ _ _ extra <<<"$key"
	out=$(mktemp "${TMPDIR:-/tmp}/fabvote-fabric-test.XXXXXX")
	log "test [$envs] $*$(tr -d ';' <<<"$key" | grep -q . && printf ' (run;skip;race;extra: %s)' "$key")"
	# Flags for the test binary go after the packages.
	if run_pkg_test "$tree" "$envs" "${args[@]}" "$@" ${extra:+"$extra"} 2>&1 | tee "$out"; then
		rm -f "$out"
		return 0
	fi
	# go test ends each failed package's output with "FAIL<tab><import path>".
	mapfile -t again < <(sed -n "s|^FAIL[[:space:]]\{1,\}$MODULE/\([^[:space:]]*\).*|./\1|p" "$out" | sort -u)
	rm -f "$out"
	[ ${#again[@]} -gt 0 ] || again=("$@")
	for p in "${again[@]}"; do
		if [ "$FABRIC_TEST_RETRY" = 1 ] && log "failed once, running again: [$envs] $p" &&
			run_pkg_test "$tree" "$envs" "${args[@]}" "$p" ${extra:+"$extra"}; then
			flaky+=("[$envs] $p")
		else
			log "FAILED: [$envs] $p"
			failed=1
		fi
	done
}

cmd_test() {
	local tree=$BUILD/fabric entry pkg rest mode envs pkgs failed=0 start t0 flaky=() key keys
	declare -A group
	prepare_fork
	start=$(date +%s)
	for mode in "${FABRIC_TEST_MODES[@]}"; do
		envs=${mode%%|*}
		pkgs=${mode#*|}
		group=()
		keys=()
		for entry in "${FABRIC_TEST_PKGS[@]}"; do
			pkg=${entry%%;*}
			rest=${entry#*;}
			if [ "$pkgs" != all ] && [[ " $pkgs " != *" $pkg "* ]]; then
				continue
			fi
			[ -n "${group[$rest]+set}" ] || keys+=("$rest")
			group[$rest]+=" $pkg"
		done
		t0=$(date +%s)
		for key in "${keys[@]}"; do
			# shellcheck disable=SC2086
			run_group "$tree" "$envs" "$key" ${group[$key]}
		done
		log "took $(($(date +%s) - t0)) s: [$envs]"
	done
	cmd_stock_semantics || failed=1
	log "upstream tests took $(($(date +%s) - start)) s"
	local f
	for f in "${flaky[@]}"; do log "FLAKY (failed once, passed on the second run): $f"; done
	[ "$failed" = 0 ] || die "upstream unit tests failed on the patched tree"
}

cmd_stock_semantics() {
	local stock=$BUILD/fabric-stock rc=0
	prepare_stock
	cp "$OVERLAY/$STOCK_SEMANTICS_TEST" "$stock/$STOCK_SEMANTICS_TEST"
	log "test [stock tree] ./bccsp/sw -run TestFabvoteECDSA"
	(cd "$stock" && "$GO" test -count=1 -run 'TestFabvoteECDSA' ./bccsp/sw) || rc=1
	rm -f "$stock/$STOCK_SEMANTICS_TEST"
	[ "$rc" = 0 ] || log "FAILED: ECDSA semantics on the stock tree"
	return "$rc"
}

# cmd_bench: the in-tree BCCSP benchmarks in both settings of O-I and O-II,
# alternating the settings FABRIC_BENCH_ROUNDS times (default 2; upstream's
# TestMain in bccsp/sw runs every benchmark 4 times, once per security level) so that
# load from other processes hits both alike; then the extension packages'
# own benchmarks (both implementations in one process).
cmd_bench() {
	local tree=$BUILD/fabric
	prepare_fork
	log "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, $(uname -r), $("$GO" version)"
	(cd "$tree" && "$GO" test -c -o "$BUILD/bccsp-sw.test" ./bccsp/sw)
	alternate_bench "$BUILD/bccsp-sw.test" "$tree/bccsp/sw" 'BenchmarkFabvote' \
		"FABVOTE_ECDSA=go FABVOTE_SHA256=stdlib" "FABVOTE_ECDSA=openssl FABVOTE_SHA256=simd"
	# O-VI: one ballot-sized transaction decoded by the eight stages of a commit.
	(cd "$tree" && "$GO" test -c -o "$BUILD/protoutil.test" ./protoutil)
	alternate_bench "$BUILD/protoutil.test" "$tree/protoutil" 'BenchmarkFabvoteCommitDecodes' \
		"FABVOTE_DECODE_MEMO=off" "FABVOTE_DECODE_MEMO=on"
	(cd "$ROOT" && "$GO" test -count=1 -run '^$' -bench . -benchtime "${FABRIC_BENCHTIME:-1s}" ./fabric/ext/sha256x ./fabric/ext/osslecdsa)
}

# alternate_bench TESTBIN DIR PATTERN ENVS...: the benchmarks PATTERN of a
# compiled test binary, run in DIR under each environment ENVS in turn,
# FABRIC_BENCH_ROUNDS rounds (default 2), so that load from other processes
# hits every setting alike.
alternate_bench() {
	local bin=$1 dir=$2 pattern=$3 round e
	shift 3
	for round in $(seq 1 "${FABRIC_BENCH_ROUNDS:-2}"); do
		for e in "$@"; do
			log "round $round: $e"
			# shellcheck disable=SC2086
			(cd "$dir" && env $e "$bin" -test.run '^$' -test.bench "$pattern" -test.benchmem \
				-test.benchtime "${FABRIC_BENCHTIME:-1s}") | grep '^Benchmark'
		done
	done
}

# cmd_workspace DIR: a git repository holding the pinned upstream plus our
# packages as its first commit and one commit per patch, the commit message
# being the patch's file name, a blank line and its header. Edit, commit (or
# amend, or rebase), then run `build.sh export DIR` to rewrite the series.
git_ws() { git -C "$1" -c user.name=fabvote -c user.email=fabvote@localhost -c core.autocrlf=false "${@:2}"; }

cmd_workspace() {
	local ws=$1 p
	[ ! -e "$ws" ] || die "$ws exists; remove it or choose another directory"
	copy_tree "$ws"
	add_ext "$ws"
	git_ws "$ws" init -q
	git_ws "$ws" add -A
	git_ws "$ws" commit -q -m "upstream $MODULE@$VERSION + fabvote packages"
	git_ws "$ws" tag fabvote-base
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		patch -d "$ws" -p1 --forward --batch --no-backup-if-mismatch --quiet <"$p" ||
			die "patch $(basename "$p") does not apply"
		git_ws "$ws" add -A
		{
			basename "$p"
			echo
			awk '/^diff --git /{exit} {print}' "$p"
		} | git_ws "$ws" commit -q -F -
	done < <(patches)
	log "workspace $ws: $(git_ws "$ws" rev-list --count fabvote-base..HEAD) patch commits on tag fabvote-base"
}

# cmd_export DIR: rewrite fabric/patches from the workspace's commits.
cmd_export() {
	local ws=$1 c name tmp n=0
	git_ws "$ws" rev-parse -q --verify fabvote-base >/dev/null || die "$ws is not a workspace (no tag fabvote-base)"
	[ -z "$(git_ws "$ws" status --porcelain)" ] || die "$ws has uncommitted changes"
	tmp=$(mktemp -d "$HERE/patches/.export.XXXXXX")
	trap 'rm -rf "$tmp"' RETURN
	for c in $(git_ws "$ws" rev-list --reverse fabvote-base..HEAD); do
		name=$(git_ws "$ws" log -1 --format=%s "$c")
		[[ "$name" =~ ^[0-9]{4}-[a-z0-9-]+\.patch$ ]] || die "commit $c: subject $name is not NNNN-name.patch"
		{
			git_ws "$ws" log -1 --format=%b "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
			echo
			git_ws "$ws" diff --no-color --no-ext-diff --no-renames --src-prefix=a/ --dst-prefix=b/ "$c^" "$c"
		} >"$tmp/$name"
		n=$((n + 1))
	done
	rm -f "$HERE"/patches/[0-9][0-9][0-9][0-9]-*.patch
	mv "$tmp"/*.patch "$HERE/patches/"
	log "exported $n patches to $HERE/patches"
}
