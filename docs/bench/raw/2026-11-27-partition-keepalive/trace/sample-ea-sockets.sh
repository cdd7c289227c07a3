#!/bin/bash
# sample-ea-sockets.sh OUT: while `make multihost-partition` runs, every 0.5 s
# the TCP connections of ea's host (network namespace m<pid>-ea) to ports
# 70xx, with ss's timers and counters, into OUT. ea-sockets.txt condenses it.
out=${1:?usage: sample-ea-sockets.sh OUT}
: >"$out"
until ns=$(ip netns list | awk '{print $1}' | grep -E '^m[0-9]+-ea$' | head -1) && [[ -n $ns ]]; do sleep 0.2; done
while ip netns list | grep -q "^$ns"; do
	echo "=== $(date +%s.%N)" >>"$out"
	ip netns exec "$ns" ss -tnio state established 2>/dev/null | grep -A1 -E ':70[0-9]{2}\b' | grep -v '^--' >>"$out"
	sleep 0.5
done
