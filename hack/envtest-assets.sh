#!/usr/bin/env bash
# Builds the envtest binaries (kube-apiserver, etcd) from source through the Go
# module proxy, caches them, and prints the directory to use as
# KUBEBUILDER_ASSETS. No prebuilt binary is downloaded: this machine cannot
# reach anything but the module proxy and Debian.
#
# Idempotent (a cached build returns at once), safe when two runs race (flock),
# and chatty on stderr because the first build takes several minutes.
set -euo pipefail

# v1.37.1: the module proxy withholds the v1.37.2 source zip of k8s.io/kubernetes.
K8S_VERSION="${HCPLINK_K8S_VERSION:-v1.37.1}"
ETCD_VERSION="${HCPLINK_ETCD_VERSION:-v3.6.16}"
# The staging modules (k8s.io/api, k8s.io/apiserver, ...) are published as v0.<minor>.<patch>.
STAGING_VERSION="v0.${K8S_VERSION#v1.}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/hcplink/envtest"
assets_dir="$cache_root/kube-apiserver-${K8S_VERSION}_etcd-${ETCD_VERSION}"

log() { printf 'envtest-assets: %s\n' "$*" >&2; }

# quiet runs a step with its output kept in a log, shown only if it fails.
quiet() {
	local step_log="$work/step.log"
	if ! "$@" >"$step_log" 2>&1; then
		log "failed: $*"
		tail -n 30 "$step_log" >&2
		return 1
	fi
}

have_assets() { [[ -x "$assets_dir/kube-apiserver" && -x "$assets_dir/etcd" ]]; }

if have_assets; then
	echo "$assets_dir"
	exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
	log "another build is running; waiting for it to finish"
	flock 9
fi
# The run that held the lock may have finished the job.
if have_assets; then
	echo "$assets_dir"
	exit 0
fi

work="$(mktemp -d "$cache_root/.build.XXXXXX")"
trap 'stop_heartbeat; rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS="-mod=mod -trimpath -buildvcs=false" GOWORK=off

# heartbeat says every minute what is still being built, so that a first
# run, silent for many minutes otherwise, never looks hung.
heartbeat_pid=""
start_heartbeat() {
	local what="$1" began=$SECONDS
	(
		trap 'kill "$tick" 2>/dev/null; exit 0' TERM
		while :; do
			sleep 60 &
			tick=$!
			wait "$tick"
			log "still building $what: $(((SECONDS - began) / 60)) min so far"
		done
	) >/dev/null &
	heartbeat_pid=$!
}
stop_heartbeat() {
	[[ -n "$heartbeat_pid" ]] || return 0
	kill "$heartbeat_pid" 2>/dev/null || true
	wait "$heartbeat_pid" 2>/dev/null || true
	heartbeat_pid=""
}

build_etcd() {
	log "building etcd $ETCD_VERSION (a few minutes the first time: its modules are fetched too)"
	mkdir -p "$work/etcd"
	start_heartbeat "etcd"
	(
		cd "$work/etcd"
		quiet go mod init hcplink.local/envtest-etcd
		quiet go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
		quiet go build -o "$work/out/etcd" go.etcd.io/etcd/server/v3
	)
	stop_heartbeat
}

build_kube_apiserver() {
	# Measured on a fresh 2-core machine: 15.5 minutes, with other builds beside it.
	log "building kube-apiserver $K8S_VERSION from source (once; about 15 minutes on 2 cores)"
	mkdir -p "$work/k8s"
	start_heartbeat "kube-apiserver"
	(
		cd "$work/k8s"
		quiet go mod init hcplink.local/envtest-kube-apiserver
		# k8s.io/kubernetes points its staging modules at ./staging; a wrapper
		# module must replace each with its published release instead.
		gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
		[[ -f "$gomod" ]] || { log "could not fetch the go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
		grep -oE '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk '{print $1}' | sort -u >staging.txt
		[[ -s staging.txt ]] || { log "found no staging modules in $gomod"; exit 1; }
		while read -r mod; do
			go mod edit -replace "$mod=$mod@$STAGING_VERSION"
		done <staging.txt
		go mod edit -require "k8s.io/kubernetes@$K8S_VERSION"
		# No `go get <package>@<version>`: it probes k8s.io/kubernetes/cmd/... as
		# module paths, which the proxy refuses. -mod=mod resolves the rest.
		version_pkg=k8s.io/component-base/version
		minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
		quiet go build -o "$work/out/kube-apiserver" \
			-ldflags "-X $version_pkg.gitVersion=$K8S_VERSION -X $version_pkg.gitMajor=1 -X $version_pkg.gitMinor=$minor" \
			k8s.io/kubernetes/cmd/kube-apiserver
	)
	stop_heartbeat
}

mkdir -p "$work/out" "$assets_dir"
start=$SECONDS
# Each binary is kept as soon as it is built, so a failed or interrupted
# kube-apiserver build does not cost the etcd build again.
if [[ ! -x "$assets_dir/etcd" ]]; then
	build_etcd
	mv "$work/out/etcd" "$assets_dir/etcd"
fi
if [[ ! -x "$assets_dir/kube-apiserver" ]]; then
	build_kube_apiserver
	mv "$work/out/kube-apiserver" "$assets_dir/kube-apiserver"
fi
log "done in $((SECONDS - start))s: $assets_dir"
echo "$assets_dir"
