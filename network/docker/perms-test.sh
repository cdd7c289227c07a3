#!/usr/bin/env bash
# perms-test.sh — generates the Docker network's material into a temporary
# directory (artifacts.sh generate + network-json, as `make docker-up` does)
# and fails if any file or directory of it is readable, writable or
# searchable by other users, or if the containers' uid could not read it;
# and if an identity does not chain to its organisation's own CA servers,
# or one of them still runs.
# Needs configtxgen (FABRIC_BIN, default bin/) and Fabric CA (bin/fabric-ca-*), no Docker.
set -euo pipefail
# shellcheck source=network/docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export FABVOTE_DOCKER_DIR=$TMP/docker

# open_to_others DIR: the paths under DIR with any permission bit for others.
open_to_others() { find "$1" -perm /o=rwx -printf '%m %p\n'; }

# unreadable_by_uid DIR: paths the containers' uid could not read, but
# for the CA servers' homes (fabric-ca), which it must not read.
unreadable_by_uid() {
	if ((EUID == 0)); then
		find "$1" -path '*/fabric-ca' -prune -o ! -uid "$FABVOTE_UID" -printf '%u %p\n'
	else
		find "$1" -path '*/fabric-ca' -prune -o -print0 | xargs -0 getfacl -p 2>/dev/null |
			awk -v u="user:$FABVOTE_UID:" '/^# file:/ {f=$3; ok=0} index($0, u)==1 && substr($0, length(u)+1, 1)=="r" {ok=1} /^$/ {if (!ok) print f}'
	fi
}

# readable_by_uid DIR: paths under DIR the containers' uid could read.
readable_by_uid() {
	if ((EUID == 0)); then
		find "$1" -uid "$FABVOTE_UID" -printf '%u %p\n'
	else
		find "$1" -print0 | xargs -0 getfacl -p 2>/dev/null |
			awk -v u="user:$FABVOTE_UID:" '/^# file:/ {f=$3} index($0, u)==1 && substr($0, length(u)+1, 1)=="r" {print f}'
	fi
}

# The check itself must catch an open file (a test that cannot fail proves nothing).
mkdir -p "$TMP/probe"
chmod 700 "$TMP/probe"
touch "$TMP/probe/key"
chmod 604 "$TMP/probe/key"
[[ -n $(open_to_others "$TMP/probe") ]] || ddie "perms-test: the check misses a world-readable file"

ROOT=$ROOT "$DOCKER_SRC/artifacts.sh" generate
ROOT=$ROOT "$DOCKER_SRC/artifacts.sh" network-json
# Each organisation's identities come from its own CA servers, which were
# stopped after the enrollment (the Docker network runs none).
"$ROOT/network/check-ca-identities.sh" "$FABVOTE_DOCKER_DIR" 19 "peer0, $CC_NAME-cc" ||
	ddie "perms-test: the identities are not all from their organisation's own CAs"
for p in /proc/[0-9]*; do
	if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$FABVOTE_DOCKER_DIR/"; then
		ddie "perms-test: a process of the generation still runs: $(tr '\0' ' ' <"$p/cmdline" | cut -c1-120)"
	fi
done
keys=$(find "$FABVOTE_DOCKER_DIR" -name priv_sk -o -name '*.key' | wc -l)
((keys > 20)) || ddie "perms-test: only $keys private keys generated; the material is incomplete"
bad=$(open_to_others "$FABVOTE_DOCKER_DIR")
[[ -z $bad ]] || { printf '%s\n' "$bad" | head -20 >&2; ddie "perms-test: $(wc -l <<<"$bad") paths are open to other users"; }
bad=$(unreadable_by_uid "$FABVOTE_DOCKER_DIR")
[[ -z $bad ]] || { printf '%s\n' "$bad" | head -20 >&2; ddie "perms-test: the containers' uid $FABVOTE_UID cannot read $(wc -l <<<"$bad") paths"; }
cas=$(find "$FABVOTE_DOCKER_DIR/crypto" -mindepth 3 -maxdepth 3 -type d -name fabric-ca | wc -l)
((cas == 4)) || ddie "perms-test: $cas organisations' CA homes, want 4"
for ca in "$FABVOTE_DOCKER_DIR"/crypto/*/*/fabric-ca; do
	bad=$(readable_by_uid "$ca")
	[[ -z $bad ]] || { printf '%s\n' "$bad" | head -5 >&2; ddie "perms-test: the containers' uid $FABVOTE_UID can read the CA home $ca"; }
done
dlog "perms-test: $(find "$FABVOTE_DOCKER_DIR" | wc -l) paths ($keys private keys), none open to other users, all readable by uid $FABVOTE_UID but the $cas CA homes, which it cannot read"
