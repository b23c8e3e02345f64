#!/usr/bin/env bash
# Measures the code size Keystone and Swinject cost, and prints one markdown table:
#
#     Benchmarks/size.sh           # a few minutes the first time, under a minute after
#     Benchmarks/size.sh --clean   # throws away the throwaway packages and their builds first
#
# - bytes per site: one client, made of N registrations whose factories each resolve the registration before
#   (`register(T5.self) { r in T5(r.resolve(T4.self)!) }`), is built in release mode against either library,
#   for N = 200 and N = 400. The difference in machine code (the text sections of the client module's
#   object files) divided by the 200 more sites is what one registration-and-resolve site adds to an app.
#   The client's source is the same for both libraries but for its import; its classes live in a module of
#   their own, so the client module holds only the container code.
# - library text: the text sections of the library module's own object files, in the same build.
#
# The throwaway packages and their builds are kept in Benchmarks/.build-size/, which git ignores (`.build-*`
# in the repository's .gitignore), so a second run only rebuilds the client. Swinject is named by its usual
# URL and version, as in Benchmarks/Package.swift; Keystone is this checkout. Needs swift, and size or
# llvm-size.
set -euo pipefail

benchmarks_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repository_dir="$(dirname "$benchmarks_dir")"
work_dir="$benchmarks_dir/.build-size"
small=200
large=400

if [[ "${1:-}" == "--clean" ]]; then
    rm -rf "$work_dir"
    shift
fi
if [[ $# -gt 0 ]]; then
    echo "usage: $0 [--clean]" >&2
    exit 2
fi

if command -v size >/dev/null; then
    size_tool=size
elif command -v llvm-size >/dev/null; then
    size_tool=llvm-size
else
    echo "size.sh: needs size (binutils) or llvm-size" >&2
    exit 1
fi

# The bytes of every text section of the given object files. Swift on Linux puts most functions in a section
# of their own (`.text.$s...`), so all sections named `.text` or `.text.*` are summed.
text_bytes() {
    "$size_tool" -A "$@" | awk '$1 == ".text" || $1 ~ /^\.text\./ { total += $2 } END { print total + 0 }'
}

# The throwaway package of library `$1`. (Not named after the library: a root package whose directory has
# a dependency's name takes that dependency's identity.)
package_dir() {
    echo "$work_dir/client-of-$(tr '[:upper:]' '[:lower:]' <<<"$1")"
}

# Writes the package for `$1` (Keystone or Swinject) with a client of `$2` registrations.
write_package() {
    local library="$1" count="$2" package_dir
    package_dir="$(package_dir "$library")"
    local dependency
    if [[ "$library" == Keystone ]]; then
        dependency=".package(name: \"Keystone\", path: \"$repository_dir\")"
    else
        dependency='.package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0")'
    fi
    mkdir -p "$package_dir/Sources/ClientTypes" "$package_dir/Sources/Client"
    cat >"$package_dir/Package.swift" <<EOF
// swift-tools-version:6.0
// Written by Benchmarks/size.sh: a throwaway client of $library.
import PackageDescription

let package = Package(
    name: "SizeClient",
    dependencies: [$dependency],
    targets: [
        .target(name: "ClientTypes"),
        .target(
            name: "Client",
            dependencies: ["ClientTypes", .product(name: "$library", package: "$library")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
EOF

    local types client
    types="$(
        echo "// Written by Benchmarks/size.sh: the classes the client registers."
        echo
        echo "public final class Type0 { public init() {} }"
        for ((i = 1; i < count; i++)); do
            echo "public final class Type$i {"
            echo "    public let previous: Type$((i - 1))"
            echo "    public init(_ previous: Type$((i - 1))) { self.previous = previous }"
            echo "}"
        done
    )"
    client="$(
        echo "// Written by Benchmarks/size.sh: $count registration-and-resolve sites."
        echo
        echo "import ClientTypes"
        echo "import $library"
        echo
        echo "/// Registers every class, each factory resolving the class before it."
        echo "public func registerAll(in container: Container) {"
        echo "    container.register(Type0.self) { _ in Type0() }"
        for ((i = 1; i < count; i++)); do
            echo "    container.register(Type$i.self) { r in Type$i(r.resolve(Type$((i - 1)).self)!) }"
        done
        echo "}"
        echo
        echo "/// Resolves the last class, and with it every other."
        echo "public func resolveLast(from container: Container) -> Type$((count - 1))? {"
        echo "    container.resolve(Type$((count - 1)).self)"
        echo "}"
    )"
    update "$package_dir/Sources/ClientTypes/Types.swift" "$types"
    update "$package_dir/Sources/Client/Client.swift" "$client"
}

# Replaces file `$1` by `$2` only if they differ, so that the build does not redo what it has.
update() {
    if [[ ! -f "$1" ]] || [[ "$(cat "$1")" != "$2" ]]; then
        printf '%s\n' "$2" >"$1"
    fi
}

# Builds the package of `$1` in release mode; on failure, shows the build's output and stops.
build() {
    local package_dir log="$work_dir/$1-build.log"
    package_dir="$(package_dir "$1")"
    if ! swift build -c release --package-path "$package_dir" --target Client >"$log" 2>&1; then
        cat "$log" >&2
        echo "size.sh: the release build of the $1 client failed (output above, also in $log)" >&2
        exit 1
    fi
}

# Stops the script when `$1`, the text bytes of `$2`, is not a positive number: a size tool that failed
# or read nothing must not yield a figure.
nonzero() {
    if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -eq 0 ]; then
        echo "size.sh: $size_tool found no text in $2" >&2
        exit 1
    fi
}

# `$1` with commas between thousands (printf's `%'d` depends on the locale).
grouped() {
    sed -e ':again' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 't again' <<<"$1"
}

declare -A client_text library_text
for library in Keystone Swinject; do
    for count in "$small" "$large"; do
        echo "size.sh: building the $library client of $count registrations" >&2
        write_package "$library" "$count"
        build "$library"
        bin_dir="$(swift build -c release --package-path "$(package_dir "$library")" --show-bin-path)"
        client_text[$library,$count]="$(text_bytes "$bin_dir"/Client.build/*.o)"
        nonzero "${client_text[$library,$count]}" "the $library client of $count registrations"
    done
    library_text[$library]="$(text_bytes "$bin_dir/$library.build"/*.o)"
    nonzero "${library_text[$library]}" "the $library module"
done

echo "| library | client text, $small sites | client text, $large sites | bytes per registration-and-resolve site \
| library module text |"
echo "|---|---:|---:|---:|---:|"
for library in Keystone Swinject; do
    small_text="${client_text[$library,$small]}"
    large_text="${client_text[$library,$large]}"
    per_site=$(((large_text - small_text) / (large - small)))
    printf '| %s | %s | %s | %s | %s |\n' "$library" "$(grouped "$small_text")" "$(grouped "$large_text")" \
        "$(grouped "$per_site")" "$(grouped "${library_text[$library]}")"
done
echo
echo "Text bytes (every .text section of the object files) of release builds with $(swift --version 2>&1 | head -1)."
echo "Bytes per site: (client text with $large sites - with $small) / $((large - small)); a site is"
echo "\`container.register(T.self) { r in T(r.resolve(Previous.self)!) }\`, the classes being in another module."
echo "Library module text: the library's own object files, before linking (what an app links may be less)."
