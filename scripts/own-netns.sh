#!/bin/sh
# own-netns.sh CMD...: runs CMD in a network namespace of its own (needs
# root): its loopback, and one private IPv4 address on a veth pair whose
# both ends stay inside, so that nothing it listens on can meet a port of
# the host and nothing reaches beyond it. Upstream Fabric's peer refuses to
# start without a non-loopback IPv4 interface, hence the pair.
# scripts/test-lanes.sh runs make test's unit lane so.
set -e
if [ -z "${FABVOTE_OWN_NETNS:-}" ]; then
	FABVOTE_OWN_NETNS=1 exec unshare -n -- "$0" "$@"
fi
ip link set lo up
ip link add fabvote0 type veth peer name fabvote1
ip addr add 10.254.0.1/24 dev fabvote0
ip link set fabvote0 up
ip link set fabvote1 up
exec "$@"
