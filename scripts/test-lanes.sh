#!/usr/bin/env bash
# test-lanes.sh: runs make test's parts in lanes side by side, each lane's
# parts one after another, and prints each part's time at the end (also
# after a failure).
#
#   test-lanes.sh LOG_DIR "PART PART ..." ["PART PART ..."]
#
# make test gives it two lanes: the unit, fuzz and upstream tests, which
# keep the cores busy, and the tests on real networks, which spend much of
# their time waiting on block cuts, elections, restarts and timeouts.
#
# Every lane but the last runs each part in a network namespace of its own
# (scripts/own-netns.sh: loopback and a private address), so that no port
# of one lane can meet a port of another: upstream Fabric's unit tests bind
# fixed ports (127.0.0.1:9053, 0.0.0.0:6051, …) that the port plan does not
# own, and the network lane's stacks are the plan's. Such a lane reaches no
# network beyond its own: make test fetches every module first
# (TEST_BUILD). Where no namespace can be made (not root), the parts run in
# one lane, one after another.
#
# Each part's output is shown as it comes, each line prefixed with
# "[part] ", and kept whole in LOG_DIR/PART.log. When a part fails, no lane
# starts another part; the lanes finish the part they are in, and the
# failed part's log ends the output. TEST_LANES=1 runs every part in one
# lane, in the order given; TEST_LANES_NETNS=0 runs every lane on the host's
# network (.ci/run's lanes after make test); TEST_LANES_WHAT names the run in
# the output (make test). MAKE is the make to run the parts with.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAKE=${MAKE:-make}
log_dir=${1:?usage: test-lanes.sh LOG_DIR "PARTS" ["PARTS"]}
shift
lanes=("$@")
what=${TEST_LANES_WHAT:-make test}
netns=${TEST_LANES_NETNS:-1}
if [ "$netns" = 1 ] && [ "${TEST_LANES:-2}" != 1 ] && [ ${#lanes[@]} -gt 1 ] && ! "$ROOT/scripts/own-netns.sh" true 2>/dev/null; then
	echo "$what: cannot make a network namespace of its own for the unit lane (scripts/own-netns.sh needs root): the parts run one after another"
	TEST_LANES=1
fi
if [ "${TEST_LANES:-2}" = 1 ]; then
	lanes=("${lanes[*]}")
fi

mkdir -p "$log_dir"
rm -f "$log_dir"/*.log "$log_dir/results" "$log_dir/failed"

# run_lane N PARTS: the parts of lane N in turn, each in a network namespace
# of its own unless N is the last lane; each one's result is a line
# "PART SECONDS STATUS LANE" in LOG_DIR/results.
run_lane() {
	local n=$1 part t0 rc isolate=()
	if [ "$netns" = 1 ] && [ "$n" -lt ${#lanes[@]} ]; then
		isolate=("$ROOT/scripts/own-netns.sh")
	fi
	for part in $2; do
		if [ -e "$log_dir/failed" ]; then
			printf '%s - not-run\n' "$part" >>"$log_dir/results"
			continue
		fi
		t0=$SECONDS
		"${isolate[@]}" "$MAKE" --no-print-directory "$part" </dev/null 2>&1 | tee "$log_dir/$part.log" | sed -u "s/^/[$part] /"
		rc=${PIPESTATUS[0]}
		if [ "$rc" = 0 ]; then
			printf '%s %d passed lane-%d\n' "$part" $((SECONDS - t0)) "$n" >>"$log_dir/results"
		else
			printf '%s %d FAILED lane-%d\n' "$part" $((SECONDS - t0)) "$n" >>"$log_dir/results"
			echo "$part" >>"$log_dir/failed"
		fi
	done
}

t_all=$SECONDS
mark=$("$ROOT/scripts/cpu-busy.sh")
pids=()
for i in "${!lanes[@]}"; do
	run_lane $((i + 1)) "${lanes[$i]}" &
	pids+=($!)
done
lane_failed=0
for p in "${pids[@]}"; do wait "$p" || lane_failed=1; done

echo "$what: time of each part (${#lanes[@]} lane(s) side by side)"
for i in "${!lanes[@]}"; do
	for part in ${lanes[$i]}; do
		read -r _ secs status lane < <(grep "^$part " "$log_dir/results" || echo "$part - not-run")
		case $status in
		passed) printf '  %-24s %6d s  %s\n' "$part" "$secs" "$lane" ;;
		FAILED) printf '  %-24s FAILED after %d s  %s\n' "$part" "$secs" "$lane" ;;
		*)
			printf '  %-24s not run\n' "$part"
			# A part with no result while none failed: its lane died.
			[ -e "$log_dir/failed" ] || echo "$part (its lane ended without running it)" >>"$log_dir/failed"
			;;
		esac
	done
done
printf '  %-24s %6d s  CPU %s\n' "all" $((SECONDS - t_all)) "$("$ROOT/scripts/cpu-busy.sh" "$mark")"

[ "$lane_failed" = 0 ] || [ -e "$log_dir/failed" ] || echo "a lane (it ended with an error)" >>"$log_dir/failed"
if [ -e "$log_dir/failed" ]; then
	while read -r part; do
		printf '\n%s: %s FAILED; the end of its log (all of it in %s):\n' "$what" "$part" "$log_dir/${part%% *}.log"
		tail -n 80 "$log_dir/${part%% *}.log" 2>/dev/null || true
	done <"$log_dir/failed"
	exit 1
fi
echo "$what: all passed"
