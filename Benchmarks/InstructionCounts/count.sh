# Counting one scenario's instructions per operation, shared by gate.sh and targets.sh (sourced; `here` is
# this directory). Builds the driver in release first.

swift build -c release --package-path "$here" > /dev/null
binary="$(swift build -c release --package-path "$here" --show-bin-path)/instruction-counts"

# Sets `count` to the instructions callgrind collected for one run of scenario `$1` with `$2` operations.
# Stops the gate (exit 2) when valgrind or the scenario fails or prints no count: a tool that fails must
# never pass for a cheap scenario. (Not called in `$( )`: a subshell would not stop the script.)
count=
instructions() {
    local output status=0
    output="$(SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1)" || status=$?
    count="$(sed -n 's/.*Collected : \([0-9][0-9]*\).*/\1/p' <<<"$output")"
    if [ "$status" -ne 0 ] || ! [[ "$count" =~ ^[0-9]+$ ]] || [ "$count" -eq 0 ]; then
        printf '%s\n' "$output" | tail -n 20 >&2
        echo "gate.sh: valgrind on scenario $1 ($2 operations) exited $status and reported no instruction count" >&2
        exit 2
    fi
}

# Sets `measured` to one operation's instructions in scenario `$1` (`name` or `name:N`).
measured=
per_operation() {
    local name="${1%%:*}" operations=1000 one
    if [[ "$1" == *:* ]]; then
        operations="${1##*:}"
    fi
    instructions "$name" "$operations"
    one=$count
    instructions "$name" $((operations * 2))
    if [ "$count" -le "$one" ]; then
        echo "gate.sh: scenario $name counted $one instructions for $operations operations and $count for twice as many" >&2
        exit 2
    fi
    measured=$(((count - one) / operations))
}
