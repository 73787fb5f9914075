#!/bin/sh
# Regenerates default.pgo, the CPU profile `go build` uses for
# profile-guided optimisation of drape (go.dev/doc/pgo): it bakes the
# examples (the sheet shortened) with --cpuprofile and merges the
# profiles. Run it from anywhere after the solver's hot paths change:
#   sh cmd/drape/pgo.sh
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a build without the old profile, so it does not steer the new one
go build -pgo=off -o "$tmp/drape" ./cmd/drape
for ex in tablecloth flag curtain cape tshirt sheet; do
	frames=
	[ "$ex" = sheet ] && frames="--frames 24"
	echo "pgo: baking $ex" >&2
	"$tmp/drape" bake "examples/$ex/scene.json" $frames --progress none \
		--cpuprofile "$tmp/$ex.pprof" -o "$tmp/$ex.glb" >"$tmp/$ex.log" 2>&1 ||
		{ cat "$tmp/$ex.log" >&2; exit 1; }
done
go tool pprof -proto "$tmp"/*.pprof >cmd/drape/default.pgo
echo "pgo: wrote cmd/drape/default.pgo" >&2
