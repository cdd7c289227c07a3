#!/usr/bin/env bash
# build-images.sh — `make docker-images`: the fabvote images from this
# repository's binaries (the fork's peer/orderer/osnadmin/configtx tools from
# `make fabric`, and `go build` of the ballot chaincode service, the external
# builder and the fabvote CLI).
#
#   fabvote/runtime    BASE_IMAGE + libssl3 + ca-certificates + user fabvote (uid 10001)
#   fabvote/peer       peer + the CCAAS external builder
#   fabvote/orderer    orderer
#   fabvote/ballot-cc  the ballot chaincode service
#   fabvote/tools      fabvote, peer CLI, osnadmin, configtxgen, configtxlator
#
# Base image (pulls nothing unless told to):
#   BASE_IMAGE=debian:bookworm-slim   use that (pulled by docker build if missing: needs a registry)
#   unset: fabvote/base:bookworm if present; else debian:bookworm-slim if already
#   present locally; else make fabvote/base:bookworm with debootstrap (Debian
#   mirror DEBIAN_MIRROR) and `docker import`, caching the root filesystem
#   tarball in build/docker/ so it is made once.
set -euo pipefail
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LOCAL_BASE=fabvote/base:bookworm
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
WORK=$BUILD/docker
BASE_TAR=$WORK/base-bookworm.tar

docker_ready || ddie "no Docker engine answers ('$DOCKER info' failed): start dockerd"
image_exists() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

# make_local_base builds fabvote/base:bookworm: a minimal bookworm with
# libssl3 and ca-certificates, made by debootstrap from the Debian mirror.
make_local_base() {
	mkdir -p "$WORK"
	if [[ ! -s $BASE_TAR ]]; then
		if ! command -v debootstrap >/dev/null; then
			((EUID == 0)) || ddie "debootstrap is missing: apt-get install debootstrap (as root)"
			dlog "installing debootstrap"
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
				{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
				ddie "apt-get install debootstrap failed"
		fi
		((EUID == 0)) || ddie "debootstrap needs root; or build with BASE_IMAGE=debian:bookworm-slim"
		local rootfs=$WORK/base-rootfs t0=$SECONDS
		rm -rf "$rootfs"
		dlog "debootstrap bookworm (minbase + libssl3, ca-certificates) from $DEBIAN_MIRROR; made once, cached in $BASE_TAR"
		debootstrap --variant=minbase --include=libssl3,ca-certificates bookworm "$rootfs" "$DEBIAN_MIRROR" \
			>"$WORK/debootstrap.log" 2>&1 || { tail -20 "$WORK/debootstrap.log" >&2; ddie "debootstrap failed (log: $WORK/debootstrap.log)"; }
		# What an image does not need: package caches, lists, docs, logs.
		rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
			"$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/* \
			"$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old
		tar -C "$rootfs" --numeric-owner -cf "$BASE_TAR.tmp" .
		mv -f "$BASE_TAR.tmp" "$BASE_TAR"
		rm -rf "$rootfs"
		dlog "base root filesystem made in $((SECONDS - t0)) s ($(du -h "$BASE_TAR" | cut -f1))"
	fi
	dlog "importing $BASE_TAR as $LOCAL_BASE"
	"$DOCKER" import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'CMD ["/bin/bash"]' \
		"$BASE_TAR" "$LOCAL_BASE" >/dev/null
}

pick_base() {
	if [[ -n ${BASE_IMAGE:-} ]]; then
		echo "$BASE_IMAGE"
	elif image_exists "$LOCAL_BASE"; then
		echo "$LOCAL_BASE"
	elif image_exists debian:bookworm-slim; then
		echo debian:bookworm-slim
	else
		make_local_base
		echo "$LOCAL_BASE"
	fi
}

# stage NAME FILE...: a build context holding only the files the image needs.
# Every file is made readable (and a program executable) by all: the
# containers run as an unprivileged user, and a binary built under another
# step's umask 077 (artifacts.sh builds its tools into the same directory)
# would otherwise reach the image as root's alone.
stage() {
	local dir=$WORK/ctx/$1 f
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "$@"; do
		[[ -f $f ]] || ddie "$f not found (run 'make fabric' for the Fabric binaries)"
		cp -p "$f" "$dir/"
		chmod u=rwX,go=rX "$dir/$(basename "$f")"
	done
	echo "$dir"
}

build() { # NAME CONTEXT BUILD-ARGS...
	local name=$1 ctx=$2 t0=$SECONDS
	shift 2
	"$DOCKER" build -f "$DOCKER_SRC/Dockerfile.$name" -t "fabvote/$name:$FABVOTE_IMAGE_TAG" \
		--label "org.fabvote.source=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		"$@" "$ctx" >"$WORK/build-$name.log" 2>&1 || { tail -30 "$WORK/build-$name.log" >&2; ddie "docker build of fabvote/$name failed (log: $WORK/build-$name.log)"; }
	dlog "fabvote/$name:$FABVOTE_IMAGE_TAG built in $((SECONDS - t0)) s"
}

main() {
	# The legacy builder when buildx is absent (Debian's docker.io has none).
	"$DOCKER" buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0
	local base gobin=$WORK/gobin
	base=$(pick_base)
	dlog "base image: $base"
	mkdir -p "$gobin"
	dlog "go build: ballot-cc, ccaas-builder, fabvote"
	(cd "$ROOT" && CGO_ENABLED=${CGO_ENABLED:-1} "$GO" build -o "$gobin/" \
		./chaincode/ballot/cmd/ballot-cc ./network/cmd/ccaas-builder ./cmd/fabvote) || ddie "go build failed"
	local b lib
	# Every library a binary loads must be in the base: report them.
	for b in "$BIN/peer" "$BIN/orderer" "$gobin/ballot-cc" "$gobin/fabvote"; do
		[[ -x $b ]] || ddie "$b not found (run 'make fabric')"
		lib=$(ldd "$b" 2>/dev/null | awk '/=>/ {print $1}' | tr '\n' ' ') || true
		dlog "$(basename "$b") loads: ${lib:-nothing (static)}; libcrypto.so.3 at run time with FABVOTE_ECDSA=openssl"
	done
	build runtime "$(stage runtime "$DOCKER_SRC/healthcheck")" --build-arg "BASE_IMAGE=$base" --build-arg "FABVOTE_UID=$FABVOTE_UID"
	local rt=(--build-arg "RUNTIME_IMAGE=fabvote/runtime:$FABVOTE_IMAGE_TAG")
	build peer "$(stage peer "$BIN/peer" "$gobin/ccaas-builder")" "${rt[@]}"
	build orderer "$(stage orderer "$BIN/orderer")" "${rt[@]}"
	build ballot-cc "$(stage ballot-cc "$gobin/ballot-cc")" "${rt[@]}"
	build tools "$(stage tools "$gobin/fabvote" "$BIN/peer" "$BIN/osnadmin" "$BIN/configtxgen" "$BIN/configtxlator")" "${rt[@]}"
	# Smoke test: each binary starts in its image, as the unprivileged user, and finds libcrypto.so.3.
	# shellcheck disable=SC2016 # expanded in the container
	"$DOCKER" run --rm "fabvote/tools:$FABVOTE_IMAGE_TAG" bash -c \
		'set -e; [ "$(id -u)" != 0 ]; ls /usr/lib/*-linux-gnu/libcrypto.so.3 >/dev/null; peer version >/dev/null; fabvote help >/dev/null 2>&1' ||
		ddie "smoke test of fabvote/tools failed"
	"$DOCKER" run --rm "fabvote/orderer:$FABVOTE_IMAGE_TAG" orderer version >/dev/null 2>&1 || ddie "smoke test of fabvote/orderer failed"
	# The peer runs the external builder as its unprivileged user: without
	# it every chaincode install falls back to the disabled docker build.
	"$DOCKER" run --rm "fabvote/peer:$FABVOTE_IMAGE_TAG" bash -c \
		'for p in detect build release; do [ -x "/opt/fabvote/builder/bin/$p" ]; done' ||
		ddie "fabvote/peer: the external builder is not executable by the peer's user"
	# The fork's OpenSSL ECDSA path (O-II) finds libcrypto.so.3 in the image.
	local out
	out=$("$DOCKER" run --rm -e FABVOTE_ECDSA=openssl "fabvote/peer:$FABVOTE_IMAGE_TAG" peer version 2>&1) || true
	[[ $out == *'"openssl", libcrypto.so.3'* ]] || { printf '%s\n' "$out" >&2; ddie "fabvote/peer: FABVOTE_ECDSA=openssl did not load libcrypto.so.3"; }
	dlog "images ready: ${IMAGES[*]/#/fabvote/} (tag $FABVOTE_IMAGE_TAG)"
}

main "$@"
