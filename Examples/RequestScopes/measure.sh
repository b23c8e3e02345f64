#!/usr/bin/env bash
# Measures what a request scope costs the server. Builds the server in release, starts it on the loopback
# interface, and drives two routes that do the same work with wrk, one after the other in interleaved runs:
#
#   /orders/book          the request's services in a child container (RequestScopeMiddleware)
#   /orders-by-hand/book  the same services made and ended by hand, without a container
#
# For each run it prints the requests per second wrk saw and the server's CPU time per request (the
# server process's utime + stime from /proc/PID/stat, before and after the run, over the requests served);
# then the mean of each route, and the difference: the scope's CPU cost per request and its share of the
# scoped request.
#
# The server runs on core 0 and wrk on core 1 (with taskset, when there are two cores or more), wrk with
# one thread and 8 connections. Settings, from the environment:
#
#   DURATION=10s  each measured run      ROUNDS=3     runs of each route
#   WARMUP=3s     an unmeasured run of each route first      PORT=8089
#
# Needs wrk (Debian: apt-get install -y wrk) and curl, and Linux's /proc.
set -euo pipefail

package="$(cd "$(dirname "$0")" && pwd)"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
warmup="${WARMUP:-3s}"
port="${PORT:-8089}"
connections=8

if ! command -v wrk >/dev/null; then
    echo "measure.sh: wrk is missing; on Debian or Ubuntu install it with: apt-get install -y wrk" >&2
    exit 1
fi
if ! command -v curl >/dev/null; then
    echo "measure.sh: curl is missing; on Debian or Ubuntu install it with: apt-get install -y curl" >&2
    exit 1
fi

swift build --package-path "$package" -c release --product RequestScopesServer
server="$(swift build --package-path "$package" -c release --show-bin-path)/RequestScopesServer"

server_pin=()
client_pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    server_pin=(taskset -c 0)
    client_pin=(taskset -c 1)
else
    echo "measure.sh: not pinning the server and wrk to cores of their own (needs taskset and two cores)" >&2
fi

work="$(mktemp -d)"
pid=""
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

"${server_pin[@]}" "$server" --port "$port" --quiet >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    if curl -sf "http://127.0.0.1:$port/health" >/dev/null; then
        break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "measure.sh: the server stopped:" >&2
        cat "$work/server.log" >&2
        exit 1
    fi
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null

cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
EOF

ticks_per_second="$(getconf CLK_TCK)"

# The server's CPU time so far, user + system, in clock ticks: fields 14 and 15 of /proc/PID/stat (counted
# after the command name, which is in parentheses and may hold spaces).
cpu_ticks() {
    sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }'
}

# Drives one route for $1 and appends "route requests requests/s ticks" to $work/runs unless told "warmup".
run() {
    local route="$1" length="$2" kind="$3"
    local before after output requests rate errors
    before="$(cpu_ticks)"
    output="$("${client_pin[@]}" wrk -t1 -c"$connections" -d"$length" -s "$work/post.lua" \
        "http://127.0.0.1:$port/$route/book")"
    after="$(cpu_ticks)"
    errors="$(awk '/Non-2xx|Socket errors/' <<<"$output")"
    if [ -n "$errors" ]; then
        echo "measure.sh: $route answered with errors:" >&2
        echo "$output" >&2
        exit 1
    fi
    requests="$(awk '/ requests in / { print $1 }' <<<"$output")"
    rate="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")"
    if [ "$kind" != warmup ]; then
        echo "$route $requests $rate $((after - before))" >>"$work/runs"
    fi
}

echo "Warming up: $warmup of each route."
run orders "$warmup" warmup
run orders-by-hand "$warmup" warmup

echo "Measuring: $rounds interleaved runs of $duration per route, wrk -t1 -c$connections."
for round in $(seq "$rounds"); do
    run orders "$duration" measured
    run orders-by-hand "$duration" measured
    echo "  round $round of $rounds done"
done

echo
awk -v hz="$ticks_per_second" '
    BEGIN {
        printf "| run | route | requests | requests/s | server CPU µs/request |\n"
        printf "|----:|-------|---------:|-----------:|----------------------:|\n"
    }
    {
        run[$1]++
        us = $4 / hz * 1e6 / $2
        printf "| %d | /%s | %d | %.0f | %.1f |\n", run[$1], $1, $2, $3, us
        requests[$1] += $2; rate[$1] += $3; ticks[$1] += $4
        if (!($1 in low) || us < low[$1]) low[$1] = us
        if (!($1 in high) || us > high[$1]) high[$1] = us
    }
    END {
        printf "\n| route | requests/s (mean) | server CPU µs/request (all runs) | per run, min-max |\n"
        printf "|-------|------------------:|--------------------------------:|-----------------:|\n"
        for (i = 1; i <= 2; i++) {
            r = (i == 1) ? "orders" : "orders-by-hand"
            cpu[r] = ticks[r] / hz * 1e6 / requests[r]
            printf "| /%s | %.0f | %.1f | %.1f-%.1f |\n", r, rate[r] / run[r], cpu[r], low[r], high[r]
        }
        cost = cpu["orders"] - cpu["orders-by-hand"]
        printf "\nThe scope costs %.1f µs of server CPU per request: %.0f%% of the scoped request'"'"'s %.1f µs.\n", \
            cost, 100 * cost / cpu["orders"], cpu["orders"]
    }
' "$work/runs"
