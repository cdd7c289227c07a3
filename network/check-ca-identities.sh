#!/usr/bin/env bash
# check-ca-identities.sh DIR COUNT NODES — every organisation's certificates
# in DIR/crypto (cryptogen's layout) chain to the root of its own CA servers
# (read from the servers' homes, not from the copies the enrollment wrote):
# MSP certificates to the MSP CA, TLS ones to the TLS CA, with server and
# client authentication; no keystore holds more than its own key; the
# registrars' secrets are on no running command line and in no node's
# files; COUNT identities in all (NODES names the peer organisations' nodes,
# for the message). Used by make network-test and make docker-perms-test.
set -euo pipefail
dir=${1:?usage: check-ca-identities.sh DIR COUNT NODES} want=${2:?} nodes=${3:?}
fail() {
	printf '[ca-identities] FAIL: %s\n' "$*" >&2
	exit 1
}

n=0
for org in "$dir"/crypto/peerOrganizations/* "$dir"/crypto/ordererOrganizations/*; do
	domain=${org##*/}
	for kind in peers orderers users; do
		for node in "$org/$kind"/*; do
			[[ -d $node ]] || continue
			openssl verify -CAfile "$org/fabric-ca/ca-server/ca-cert.pem" "$node/msp/signcerts/${node##*/}-cert.pem" >/dev/null ||
				fail "${node##*/}: MSP certificate does not chain to $domain's MSP CA"
			tlscert=$node/tls/server.crt
			[[ -f $tlscert ]] || tlscert=$node/tls/client.crt
			openssl verify -CAfile "$org/fabric-ca/tlsca-server/ca-cert.pem" "$tlscert" >/dev/null ||
				fail "${node##*/}: TLS certificate does not chain to $domain's TLS CA"
			openssl x509 -noout -ext extendedKeyUsage -in "$tlscert" | grep -q 'TLS Web Server Authentication, TLS Web Client Authentication' ||
				fail "${node##*/}: TLS certificate lacks server and client authentication"
			(($(ls "$node/msp/keystore" | wc -l) == 1)) || fail "${node##*/}: keystore holds more than its own key"
			n=$((n + 1))
		done
	done
done
# The secret goes to grep in a file, so that grep's own command line does not hold it.
pattern=$(mktemp)
trap 'rm -f "$pattern"' EXIT
for f in "$dir"/crypto/*Organizations/*/fabric-ca/*-registrar; do
	cut -d: -f2 "$f" >"$pattern"
	[[ -s $pattern ]] || fail "$f holds no secret"
	! grep -qsF -f "$pattern" /proc/[0-9]*/cmdline || fail "the secret of $f is on a command line"
	! grep -rqF -f "$pattern" "$dir"/nodes || fail "the secret of $f is in a node's files"
done
((n == want)) || fail "checked $n identities, want $want (the orderers and Admin; $nodes, Admin, User1, User2 of each peer organisation)"
printf '[ca-identities] ok: all %d identities chain to their organisation'"'"'s own CA and TLS CA\n' "$n" >&2
