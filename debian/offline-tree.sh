#!/bin/sh
# Makes DIR, the copy of the source the package is built from (debian/rules), and CARGO_HOME
# for it: cargo runs offline there, against Debian's packaged crates in
# /usr/share/cargo/registry (librust-libc-dev, librust-cfg-if-dev). The copy's Cargo.toml keeps
# only the library and the interposer in the workspace and drops the dev-dependencies (the
# test, benchmark and header tools' crates, which Debian does not package); Cargo.lock stays
# out, so cargo resolves the packaged versions.
# usage: debian/offline-tree.sh DIR CARGO_HOME
set -eu
dir=$1 home=$2
rm -rf "$dir"
mkdir -p "$dir" "$home"
cp -a build.rs src include preload provider launcher c-tests bench scripts meson.build \
  meson_options.txt stitchgcm.pc.in "$dir/"
awk '
  /^\[/ { skip = ($0 == "[dev-dependencies]") }
  /^members = / { print "members = [\".\", \"preload\"]"; next }
  !skip
' Cargo.toml >"$dir/Cargo.toml"
grep -q '^members = \[".", "preload"\]$' "$dir/Cargo.toml" || { echo "offline-tree.sh: no workspace members line in Cargo.toml" >&2; exit 1; }
cat >"$home/config.toml" <<CONF
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
CONF
