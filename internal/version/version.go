// Package version holds the build's version, set at link time.
package version

// Version is overridden with -ldflags "-X github.com/hcplink/hcplink/internal/version.Version=...".
var Version = "v0.1.0-dev"
