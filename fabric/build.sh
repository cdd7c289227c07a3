#!/usr/bin/env bash
# fabric/build.sh — builds the fabvote fork of Hyperledger Fabric from the pinned
# upstream module plus our patch series. No upstream source lives in this
# repository: every tree is made under $BUILD from the Go module cache.
#
#   build.sh verify          check the pinned module's hash (download it if missing)
#   build.sh stock           unpatched upstream          -> $BIN/stock/{peer,orderer,...}
#   build.sh fork            upstream + ext + patches    -> $BIN/{peer,orderer,...}
#   build.sh modules         the modules both trees build and test with, into the cache
#   build.sh check-patches   the series applies cleanly to a fresh copy
#   build.sh test            upstream unit tests of the packages the patches touch,
#                            in every mode of every switch, on the patched tree
#   build.sh bench           in-tree BCCSP benchmarks (Go vs OpenSSL ECDSA, SHA-256)
#   build.sh workspace DIR   a git repository with one commit per patch, for
#                            editing the series (see docs/FORK.md)
#   build.sh export DIR      rewrite fabric/patches from such a workspace
#   build.sh patch-level     the patch series' level, as `peer version` prints it
#   build.sh packages        our packages copied into the tree: ext SRC DST, intree NAME
#
# Environment: ROOT (repository root), BUILD, BIN, GO; FABRIC_GO_TAGS (extra build
# tags, as upstream's GO_TAGS; default "gmp" when libgmp links, see below).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${ROOT:-$(dirname "$HERE")}
BUILD=${BUILD:-$ROOT/build}
BIN=${BIN:-$ROOT/bin}
GO=${GO:-go}
# FABRIC_GO_TAGS unset: "gmp" when libgmp links (chaincode/gotags.sh), so
# that the ballot validation plugin's proof check (fabvote/mod/crypto/
# paillier/arith) uses GMP as the chaincode does; it handles public values
# only. Set it (even empty) to choose.
FABRIC_GO_TAGS=${FABRIC_GO_TAGS-$("$ROOT/chaincode/gotags.sh" "$GO")}

# shellcheck source=/dev/null
. "$HERE/UPSTREAM"
: "${MODULE:?UPSTREAM lacks MODULE}" "${VERSION:?UPSTREAM lacks VERSION}" "${SUM:?UPSTREAM lacks SUM}"

# The upstream module ships vendor/modules.txt without the vendored code, so
# every go command in a tree runs with -mod=mod. GOWORK=off keeps a go.work
# elsewhere from leaking in. GOFLAGS from the caller (e.g. -buildvcs=false) stay.
export GOWORK=off
export GOFLAGS="${GOFLAGS:-} -mod=mod -buildvcs=false"
export CGO_ENABLED=${CGO_ENABLED:-1}

CMDS=(peer orderer cryptogen configtxgen osnadmin configtxlator)

# go_pkg_dirs DIR: the subdirectories of DIR (relative to the working
# directory) that hold a Go package (a non-test .go file), as DIR/<name>,
# skipping what the go command ignores (names starting with . or _,
# testdata): a leftover or data directory is no package to copy.
go_pkg_dirs() {
	local d name
	for d in "$1"/*/; do
		d=${d%/}
		name=${d##*/}
		[ -d "$d" ] || continue # DIR has no subdirectory: the pattern stayed as is
		case $name in .* | _* | testdata) continue ;; esac
		[ -n "$(find "$d" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' -print -quit)" ] || continue
		echo "$d"
	done
}

# Our own packages, copied into the tree so patches can import them as
# github.com/hyperledger/fabric/fabvote/<name>: every package of fabric/ext,
# and txmgr/lockless. They import only the standard library and third-party
# modules (checked below), never each other. A new switch's package in
# fabric/ext is built without an edit here (fabric/switches' tests check
# that every switch's package is among these).
mapfile -t EXT_SRC < <(cd "$ROOT" && go_pkg_dirs fabric/ext; echo txmgr/lockless)
EXT_DST=()
for s in "${EXT_SRC[@]}"; do EXT_DST+=("fabvote/${s##*/}"); done

# Packages of the root module that in-tree code needs: the validation-time
# ballot check, the election test fixture, and every package of ours they
# import (go list -deps, so that a new import needs no edit here). They are
# copied to fabvote/mod/<path> with their imports of github.com/fabvote/fabvote/
# rewritten to that prefix, and must import only the standard library and
# each other (checked by the build).
MOD_PKGS=()
MOD_PREFIX=$MODULE/fabvote/mod

# load_mod_pkgs fills MOD_PKGS once, when a command needs it.
load_mod_pkgs() {
	[ "${#MOD_PKGS[@]}" -eq 0 ] || return 0
	mapfile -t MOD_PKGS < <(cd "$ROOT" && "$GO" list -deps ./validation/ballotcheck ./election/electiontest |
		sed -n 's|^github.com/fabvote/fabvote/||p')
	[ "${#MOD_PKGS[@]}" -gt 0 ] || die "go list found none of the root module's packages for the tree (GO=$GO, ROOT=$ROOT)"
}

# mod_embeds PKG: the files PKG's non-test sources embed (//go:embed, plain
# paths relative to the package), which are copied and stamped with it.
mod_embeds() {
	local f
	for f in "$ROOT/$1"/*.go; do
		case $f in *_test.go) continue ;; esac
		sed -n 's|^//go:embed ||p' "$f" | tr ' ' '\n'
	done | sed '/^$/d' | LC_ALL=C sort -u
}

# Packages of ours that import Fabric (fabric/intree/<name>, outside the root
# module): copied with their tests to fabvote/<name>; they are built and
# tested only in the tree.
INTREE=$HERE/intree
mapfile -t INTREE_PKGS < <(cd "$INTREE" && go_pkg_dirs . | sed 's|^\./||')

# In-tree test files: fabric/testdata/overlay/<path> is copied to <tree>/<path>.
OVERLAY=$HERE/testdata/overlay

log() { printf 'fabric: %s\n' "$*" >&2; }
die() { printf 'fabric: error: %s\n' "$*" >&2; exit 1; }

# Each copied package has a directory of its own in the tree: two packages
# of one name (an ext package and txmgr/lockless, or an ext and an in-tree
# one) would overwrite each other.
check_destinations() {
	local -A owner=([fabvote/mod]="the root module's packages (MOD_PKGS)")
	local i dst src
	for i in "${!EXT_SRC[@]}"; do
		dst=${EXT_DST[$i]} src=${EXT_SRC[$i]}
		[ -z "${owner[$dst]:-}" ] || die "$src and ${owner[$dst]} are both copied to $dst: rename one"
		owner[$dst]=$src
	done
	for i in "${INTREE_PKGS[@]}"; do
		dst=fabvote/$i src=fabric/intree/$i
		[ -z "${owner[$dst]:-}" ] || die "$src and ${owner[$dst]} are both copied to $dst: rename one"
		owner[$dst]=$src
	done
}
check_destinations

# h1 computes the go.sum "h1:" hash of a module directory: SHA-256 over the
# sorted lines "<sha256 of file>  <module>@<version>/<path>\n", base64-encoded.
h1() {
	local dir=$1 prefix=$2 hex
	hex=$(cd "$dir" && find . -type f -printf '%P\0' | LC_ALL=C sort -z |
		xargs -0 sha256sum | sed "s|  |  $prefix/|" | sha256sum | cut -d' ' -f1)
	printf 'h1:%s\n' "$(printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" | base64)"
}

# moddir prints the module cache directory of the pinned upstream after checking
# both the recorded hash and the files themselves against the pin.
moddir() {
	local json dir sum got
	json=$(cd / && GOFLAGS=-mod=mod "$GO" mod download -json "$MODULE@$VERSION") ||
		die "cannot download $MODULE@$VERSION"
	dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
	sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
	[ -n "$dir" ] && [ -d "$dir" ] || die "go mod download gave no directory for $MODULE@$VERSION"
	[ "$sum" = "$SUM" ] || die "$MODULE@$VERSION: module cache Sum $sum, pinned $SUM (fabric/UPSTREAM)"
	got=$(h1 "$dir" "$MODULE@$VERSION")
	[ "$got" = "$SUM" ] || die "$MODULE@$VERSION: files in $dir hash to $got, pinned $SUM: the module cache was modified"
	printf '%s\n' "$dir"
}

patches() { find "$HERE/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | LC_ALL=C sort; }

# patch_level: the highest patch number and the first 12 hex digits of
# SHA-256 over every patch's file name, a newline and its content, in order.
# `fabvote version` computes the same (package fabric, series.go); its test
# compares the two.
patch_level() {
	local last digest
	last=$(basename "$(patches | tail -n 1)")
	digest=$(patches | while IFS= read -r p; do
		printf '%s\n' "$(basename "$p")"
		cat "$p"
	done | sha256sum | cut -c1-12)
	printf '%s+sha256:%s\n' "${last%%-*}" "$digest"
}

# check_go: refuse a Go older than the floor in fabric/floors/floors.txt
# (the standard library's security fixes come with the toolchain).
check_go() {
	local floor have
	floor=$(awk '$1 == "go" { print $2 }' "$HERE/floors/floors.txt")
	[ -n "$floor" ] || die "fabric/floors/floors.txt has no go line"
	have=$("$GO" env GOVERSION) || die "cannot run $GO"
	have=${have#go}
	[ "$(printf '%s\n%s\n' "$floor" "$have" | sort -V | head -n 1)" = "$floor" ] ||
		die "Go $have is older than the floor $floor (fabric/floors/floors.txt); install Go $floor or newer"
}

# copy_tree DEST: a fresh, writable copy of the pinned upstream at DEST.
copy_tree() {
	local src dest=$1
	src=$(moddir)
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	cp -R "$src" "$dest"
	chmod -R u+w "$dest"
}

# add_ext DEST: copy our extension packages and the in-tree test overlay.
add_ext() {
	local dest=$1 i src dst bad files
	for i in "${!EXT_SRC[@]}"; do
		src=$ROOT/${EXT_SRC[$i]}
		dst=$dest/${EXT_DST[$i]}
		if ! compgen -G "$src/*.go" >/dev/null; then
			log "warning: extension package ${EXT_SRC[$i]} has no Go files yet; not copied"
			continue
		fi
		# Only the package's own files: its tests run in the root module.
		mapfile -t files < <(find "$src" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' | LC_ALL=C sort)
		bad=$(grep -l '"github.com/fabvote/fabvote' "${files[@]}" || true)
		[ -z "$bad" ] || die "extension package files import the root module: $bad"
		mkdir -p "$dst"
		cp "${files[@]}" "$dst/"
	done
	add_mod "$dest"
	for i in "${INTREE_PKGS[@]}"; do
		mkdir -p "$dest/fabvote/$i"
		cp "$INTREE/$i"/*.go "$dest/fabvote/$i/"
	done
	if [ -d "$OVERLAY" ]; then
		cp -R "$OVERLAY/." "$dest/"
	fi
}

# add_mod DEST: copy MOD_PKGS (no tests) under fabvote/mod with rewritten
# imports, and the files they embed (the test fixtures). The files keep the root module's language version through a
# go1.22 build constraint, which states the language version they are written
# for whatever go line the tree's go.mod has (1.26 since patch 0001).
add_mod() {
	local dest=$1 p f out
	load_mod_pkgs
	for p in "${MOD_PKGS[@]}"; do
		mkdir -p "$dest/fabvote/mod/$p"
		while IFS= read -r f; do
			out=$dest/fabvote/mod/$p/$(basename "$f")
			if grep -q '^//go:build ' "$f"; then
				sed -e 's|^//go:build \(.*\)$|//go:build go1.22 \&\& (\1)|' \
					-e "s|\"github.com/fabvote/fabvote/|\"$MOD_PREFIX/|g" "$f" >"$out"
			else
				{ printf '//go:build go1.22\n\n'; sed "s|\"github.com/fabvote/fabvote/|\"$MOD_PREFIX/|g" "$f"; } >"$out"
			fi
		done < <(find "$ROOT/$p" -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' | LC_ALL=C sort)
		while IFS= read -r f; do
			mkdir -p "$(dirname "$dest/fabvote/mod/$p/$f")"
			cp "$ROOT/$p/$f" "$dest/fabvote/mod/$p/$f"
		done < <(mod_embeds "$p")
	done
}

# apply_patches DEST: apply the series in order; stop at the first failure.
apply_patches() {
	local dest=$1 p
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		patch -d "$dest" -p1 --forward --batch --no-backup-if-mismatch --quiet <"$p" ||
			die "patch $(basename "$p") does not apply cleanly"
	done < <(patches)
}

# stamp: a digest of everything that shapes the patched tree.
stamp() {
	load_mod_pkgs
	{
		cat "$HERE/UPSTREAM" "$HERE/build.sh"
		patches | while IFS= read -r p; do printf '%s\n' "$p"; cat "$p"; done
		for s in "${EXT_SRC[@]}"; do
			[ ! -d "$ROOT/$s" ] || find "$ROOT/$s" -type f | LC_ALL=C sort | xargs sha256sum
		done
		for s in "${MOD_PKGS[@]}"; do
			find "$ROOT/$s" -maxdepth 1 -type f | LC_ALL=C sort | xargs sha256sum
			mod_embeds "$s" | while IFS= read -r f; do sha256sum "$ROOT/$s/$f"; done
		done
		find "$INTREE" -type f | LC_ALL=C sort | xargs sha256sum
		[ ! -d "$OVERLAY" ] || find "$OVERLAY" -type f | LC_ALL=C sort | xargs sha256sum
	} | sha256sum | cut -d' ' -f1
}

build_bins() {
	local tree=$1 out=$2 version=$3 ldflags pkgs=() c
	for c in "${CMDS[@]}"; do pkgs+=("./cmd/$c"); done
	ldflags="-X $MODULE/common/metadata.Version=$version -X $MODULE/common/metadata.CommitSHA=$COMMIT"
	ldflags+=" -X $MODULE/common/metadata.FabvotePatches=$(patch_level)"
	mkdir -p "$out"
	log "building ${CMDS[*]} -> $out"
	(cd "$tree" && "$GO" build -trimpath -tags "$FABRIC_GO_TAGS" -ldflags "$ldflags" -o "$out/" "${pkgs[@]}")
}

# prepare_stock: (re)make the pristine tree $BUILD/fabric-stock when the pin changed.
prepare_stock() {
	local tree=$BUILD/fabric-stock s
	s=$(sha256sum <"$HERE/UPSTREAM" | cut -d' ' -f1)
	if [ ! -f "$tree/.fabvote-stamp" ] || [ "$(cat "$tree/.fabvote-stamp")" != "$s" ]; then
		log "copying pristine $MODULE@$VERSION -> $tree"
		copy_tree "$tree"
		echo "$s" >"$tree/.fabvote-stamp"
	fi
}

cmd_stock() {
	local tree=$BUILD/fabric-stock
	locked eval 'prepare_stock; build_bins "$BUILD/fabric-stock" "$BIN/stock" "$RELEASE"'
	# The stock peer's own configuration: the fork's core.yaml registers the
	# compiled-in ballot validation handler, which a stock peer cannot load.
	rm -rf "$BUILD/config-stock.tmp"
	mkdir -p "$BUILD/config-stock.tmp"
	cp -R "$tree/sampleconfig/." "$BUILD/config-stock.tmp/"
	rm -rf "$BUILD/config-stock"
	mv "$BUILD/config-stock.tmp" "$BUILD/config-stock"
}

# locked CMD...: run CMD holding $BUILD/.fabric.lock, so that two builds (or a
# build and a test run) never re-make the same tree at once.
locked() {
	mkdir -p "$BUILD"
	(
		flock 9
		"$@"
	) 9>"$BUILD/.fabric.lock"
}

# prepare_fork: (re)make $BUILD/fabric when the pin, the patches, the build
# script or our packages changed. The go build cache is keyed by file content,
# so a fresh copy costs only the packages whose files really changed.
prepare_fork() { locked prepare_fork_unlocked; }

prepare_fork_unlocked() {
	local tree=$BUILD/fabric s tmp
	s=$(stamp)
	if [ -f "$tree/.fabvote-stamp" ] && [ "$(cat "$tree/.fabvote-stamp")" = "$s" ]; then
		return 0
	fi
	log "preparing patched tree $tree"
	tmp=$BUILD/.fabric.tmp
	copy_tree "$tmp"
	add_ext "$tmp"
	apply_patches "$tmp"
	echo "$s" >"$tmp/.fabvote-stamp"
	rm -rf "$tree"
	mv "$tmp" "$tree"
	rm -rf "$BUILD/config"
	mkdir -p "$BUILD/config"
	cp -R "$tree/sampleconfig/." "$BUILD/config/"
}

cmd_fork() {
	locked eval 'prepare_fork_unlocked; build_bins "$BUILD/fabric" "$BIN" "$RELEASE"'
}

# cmd_modules: every module the patched and the stock tree build and test
# with, into the module cache, so that their tests then run with no network
# (make test runs its unit lane in a network namespace of its own).
cmd_modules() {
	prepare_fork
	locked prepare_stock
	(cd "$BUILD/fabric" && GOFLAGS=-mod=mod "$GO" mod download)
	(cd "$BUILD/fabric-stock" && GOFLAGS=-mod=mod "$GO" mod download)
}

cmd_check_patches() {
	local tmp n
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabvote-check.XXXXXX")
	trap 'rm -rf "$tmp"' RETURN
	copy_tree "$tmp/fabric"
	# The copy must be the pinned content, and the hash must see a change.
	[ "$(h1 "$tmp/fabric" "$MODULE@$VERSION")" = "$SUM" ] || die "the copy of the module does not hash to $SUM"
	add_ext "$tmp/fabric"
	n=0
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		head -c 200 "$p" | grep -q '[A-Za-z]' || die "$(basename "$p") has no header"
		patch -d "$tmp/fabric" -p1 --forward --batch --dry-run --quiet <"$p" >/dev/null ||
			die "patch $(basename "$p") does not apply cleanly to a fresh copy"
		patch -d "$tmp/fabric" -p1 --forward --batch --no-backup-if-mismatch <"$p" >"$tmp/out" 2>&1 ||
			die "patch $(basename "$p") failed: $(cat "$tmp/out")"
		if grep -qi 'fuzz\|offset' "$tmp/out"; then
			die "patch $(basename "$p") applies only with fuzz/offset: $(cat "$tmp/out")"
		fi
		n=$((n + 1))
	done < <(patches)
	if find "$tmp/fabric" -name '*.rej' -o -name '*.orig' | grep -q .; then
		die "reject or backup files left after applying the series"
	fi
	if [ "$n" -gt 0 ] && [ "$(h1 "$tmp/fabric" "$MODULE@$VERSION")" = "$SUM" ]; then
		die "the patched copy still hashes to the pin: the tamper check would not notice a change"
	fi
	log "all $n patches apply cleanly to a fresh copy of $MODULE@$VERSION"
}

case "${1:-}" in
verify | stock | fork | modules | check-patches | test | bench) check_go ;;
esac

case "${1:-}" in
patch-level) patch_level ;;
packages)
	for i in "${!EXT_SRC[@]}"; do echo "ext ${EXT_SRC[$i]} ${EXT_DST[$i]}"; done
	for p in "${INTREE_PKGS[@]}"; do echo "intree $p"; done
	;;
verify) moddir >/dev/null && log "$MODULE@$VERSION matches $SUM" ;;
stock) cmd_stock ;;
fork) cmd_fork ;;
modules) cmd_modules ;;
check-patches) cmd_check_patches ;;
test) . "$HERE/test.sh" && cmd_test ;;
bench) . "$HERE/test.sh" && cmd_bench ;;
workspace) . "$HERE/test.sh" && cmd_workspace "${2:?usage: build.sh workspace DIR}" ;;
export) . "$HERE/test.sh" && cmd_export "${2:?usage: build.sh export DIR}" ;;
*) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
