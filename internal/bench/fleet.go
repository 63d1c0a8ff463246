package bench

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hcplink/hcplink/internal/devenv"
)

// The clouds the bench runs on, as --platform names them.
const (
	PlatformAWS   = "aws"
	PlatformAzure = "azure"
	PlatformGCP   = "gcp"
)

// fleet is what differs between the clouds in a run: the environment, the
// clusters' preparation and spec, and the accounting of the counts.
type fleet interface {
	name() string
	// accounts is how many customer accounts or guest subscriptions the
	// clusters are spread over.
	accounts() int
	throttlingSays() string
	devenvOptions(opts Options, progress io.Writer) devenv.Options
	prepare(ctx context.Context, env *devenv.Env, n int, progress io.Writer) ([]cluster, error)
	// operatorStart keeps, of the set-up's counts, the operator's own calls
	// before the clusters (they count as start-up).
	operatorStart(setup Snapshot) Snapshot
	create(ctx context.Context, env *devenv.Env, c cluster) error
	accounting(env *devenv.Env) *accounting
}

// fleetFor picks the cloud of opts.Platform (AWS when empty).
func fleetFor(opts Options) (fleet, error) {
	switch strings.ToLower(opts.Platform) {
	case "", PlatformAWS:
		return newAWSFleet(opts), nil
	case PlatformAzure:
		return newAzureFleet(opts)
	case PlatformGCP:
		return newGCPFleet(opts)
	}
	return nil, fmt.Errorf("--platform must be aws, azure or gcp, not %q", opts.Platform)
}
