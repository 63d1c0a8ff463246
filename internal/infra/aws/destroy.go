package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Destroy deletes everything tagged for the infra ID in the region — what
// create made and what the control-plane operator left behind (endpoints,
// security groups) — in whole passes, until a pass finds nothing left. A
// resource another one still holds (a subnet under a NAT gateway that is
// deleting) simply waits for the next pass. It gives up after the grace
// period, saying what remains.
func Destroy(ctx context.Context, opts Options, deps Deps) error {
	r := newRun(opts, deps)
	if err := r.opts.validateIdentity(); err != nil {
		return err
	}
	r.deadline = time.Now().Add(r.destroyGrace())
	for pass := 1; ; pass++ {
		left, err := r.destroyPass(ctx)
		if len(left) == 0 && err == nil {
			return nil
		}
		if cloud.ClassOf(err) == cloud.ClassAccessDenied || ctx.Err() != nil {
			return fmt.Errorf("destroying infra %s: %w", r.opts.InfraID, errors.Join(err, ctx.Err()))
		}
		if time.Now().After(r.deadline) {
			return fmt.Errorf("destroying infra %s: still there after %s: %s; re-run the same command to go on: %w",
				r.opts.InfraID, r.destroyGrace(), strings.Join(left, ", "), err)
		}
		if err == nil {
			continue // everything found was deleted: the next pass checks that nothing is left
		}
		r.say.Waiting(fmt.Sprintf("%d resources still held by others (pass %d: %s)", len(left), pass, firstLine(err)))
		if err := r.pausePass(ctx); err != nil {
			return err
		}
	}
}

// firstLine is the first line of err, for a one-line wait message.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// destroyStep deletes one kind of resource and returns what it found
// still there ("NAT gateway nat-0abc"), deleted or not.
type destroyStep func(ctx context.Context) (left []string, err error)

// destroyPass runs every step in dependency order. A step's error (most
// often a dependency: a subnet still used by something deleting) does not
// stop the pass: later steps may still make progress, and the next pass
// retries.
func (r *run) destroyPass(ctx context.Context) (left []string, err error) {
	steps := []destroyStep{r.startDeletingNATGateways, r.deleteLoadBalancers, r.deleteEndpoints, r.deleteSecurityGroups, r.deletePrivateZones, r.deleteNATGateways,
		r.deleteRouteTables, r.deleteSubnets, r.deleteInternetGateways, r.deleteVPCs, r.releaseElasticIPs, r.deleteDHCPOptions}
	var errs []error
	for _, step := range steps {
		found, err := step(ctx)
		left = append(left, found...)
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return left, errors.Join(errs...)
}

func (r *run) destroyGrace() time.Duration {
	if r.deps.DestroyGrace > 0 {
		return r.deps.DestroyGrace
	}
	return DefaultDestroyGrace
}

// pausePass waits between passes: the poll interval when Deps set one,
// else destroyPassInterval.
func (r *run) pausePass(ctx context.Context) error {
	if r.deps.PollInterval > 0 {
		return r.pause(ctx)
	}
	return wait(ctx, destroyPassInterval)
}

// gone reports whether a delete's error means there is nothing to wait
// for: none, or the resource is already gone.
func gone(err error) bool { return err == nil || awscloud.IsNotFound(err) }
