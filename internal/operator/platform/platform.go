// Package platform is the management operator's registry of private
// platforms. Each cloud describes, in its own package, what the operator
// needs to know about its private connectivity:
//
//   - its name (the --private-platform value) and the HostedCluster
//     platform type it serves;
//   - the kind of its private-link objects, the condition types folded from
//     them into the HostedCluster, and how to list them (name, conditions,
//     finalizers, and what cloud resources each finalizer would leak if it
//     were given up);
//   - when it applies to a cluster (the cluster asks for private
//     connectivity on that cloud);
//   - whether its control-plane operator runs a final customer-side sweep
//     at deletion (and reports it in the HostedControlPlane's
//     CloudCleanupComplete condition);
//   - the operator setup that registers its management-side controllers.
//
// The HostedCluster controller and the operator's setup only read the
// registry, so a new cloud adds a package and one line where the registry
// is assembled, without touching another cloud's code.
package platform

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/events"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Object is one private-link object as the HostedCluster controller sees
// it.
type Object struct {
	// Object is the object itself, to delete it and edit its finalizers.
	Object client.Object
	// Conditions are its status conditions.
	Conditions []metav1.Condition
	// Leaks names, per finalizer, the cloud resources that finalizer
	// removes: what may remain when it is given up. A finalizer not listed
	// is described by Fallback.
	Leaks map[string]string
	// Fallback describes the object's cloud resources as a whole.
	Fallback string
}

// Leak describes what giving up finalizer may leave behind.
func (o Object) Leak(finalizer string) string {
	if d, ok := o.Leaks[finalizer]; ok && d != "" {
		return d
	}
	return o.Fallback
}

// SetupOptions are what a platform's operator setup gets from the
// operator's options.
type SetupOptions struct {
	// Log is the operator's logger.
	Log logr.Logger
	// Region is the management cluster's region on the platform.
	Region string
	// Cloud is the platform's own configuration, when the caller gives one
	// (for AWS an *aws.Config); nil loads it the platform's standard way.
	Cloud any
	// MaxConcurrentReconciles is the worker count of each controller.
	MaxConcurrentReconciles int
	// ManagementClusterID names the management cluster in the cloud (tags),
	// so that management clusters sharing an account never touch each
	// other's resources.
	ManagementClusterID string
	// DriftInterval and SweepInterval are the platform controllers' drift
	// check and orphan sweep intervals; zero means their defaults.
	DriftInterval, SweepInterval time.Duration
	// Events tells people what the platform's controllers did; nil tells
	// nothing.
	Events *events.Recorder
	// Placements are the places the operator may put clusters' routers on
	// (Azure: --azure-load-balancer-configurations); none: the cloud
	// provider places them.
	Placements []string
}

// Placer chooses, once per cluster and before its control plane exists,
// where the cloud provider puts the cluster's router Services (on Azure:
// one of cloud-provider-azure's load-balancer configurations).
type Placer interface {
	// Place returns the cluster's placement: recorded when one was
	// recorded (it is kept, and counted), else one chosen now, "" when the
	// platform does not place this cluster. A *PlacementRefused error says
	// that no place has room.
	Place(ctx context.Context, hc *hcplinkv1beta1.HostedCluster, recorded string) (string, error)
}

// PlacementRefused is a Placer's answer when no place has room: the
// cluster's Available condition carries its reason and message.
type PlacementRefused struct{ Reason, Message string }

func (e *PlacementRefused) Error() string { return e.Message }

// Started is what a platform's setup hands back to the operator.
type Started struct {
	// Identity checks the management credentials; nil: no check.
	Identity IdentityCaller
	// Placer places clusters' routers; nil: the cloud provider does.
	Placer Placer
}

// IdentityCaller asks the cloud who the operator is: the management
// credentials check.
type IdentityCaller func(ctx context.Context) (identity string, err error)

// ConfigError is returned by a Setup whose cloud configuration cannot be
// loaded: the operator keeps running (public clusters still work), reports
// the management credentials as invalid, and says so in its log.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "loading the cloud configuration: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsConfigError reports whether err is a *ConfigError.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

// Platform describes one private platform.
type Platform struct {
	// Name is the --private-platform value ("AWS").
	Name string
	// Type is the HostedCluster platform type it serves.
	Type hcplinkv1beta1.PlatformType
	// Kind is the kind of its private-link objects.
	Kind string
	// Prototype is an empty private-link object, for watches.
	Prototype client.Object
	// ConditionTypes are the private-link conditions folded into the
	// HostedCluster.
	ConditionTypes []string
	// AppliesTo reports whether the cluster asks for private connectivity
	// on this platform.
	AppliesTo func(hc *hcplinkv1beta1.HostedCluster) bool
	// List returns the private-link objects in a control-plane namespace.
	List func(ctx context.Context, c client.Reader, namespace string, hc *hcplinkv1beta1.HostedCluster) ([]Object, error)
	// FinalSweep is true when the control-plane operator sweeps the
	// customer's account once the private-link objects are gone and
	// reports it in the HostedControlPlane's CloudCleanupComplete
	// condition; deletion then waits for it.
	FinalSweep bool
	// FinalSweepLeak describes what may remain in the customer's account
	// when the wait for the final sweep is given up.
	FinalSweepLeak func(hc *hcplinkv1beta1.HostedCluster) string
	// Setup registers the platform's management-side controllers and
	// returns the check of the management credentials and the placer of
	// routers (each nil: none). nil means the platform has no
	// management-side controllers yet.
	Setup func(ctx context.Context, mgr manager.Manager, opts SetupOptions) (Started, error)
}

// Registry is the set of platforms the operator knows, in a fixed order.
type Registry struct {
	platforms []Platform
}

// New registers platforms; a later platform with the same name replaces
// an earlier one.
func New(platforms ...Platform) *Registry {
	r := &Registry{}
	for _, p := range platforms {
		r.add(p)
	}
	return r
}

func (r *Registry) add(p Platform) {
	for i := range r.platforms {
		if r.platforms[i].Name == p.Name {
			r.platforms[i] = p
			return
		}
	}
	r.platforms = append(r.platforms, p)
}

// All returns the platforms in registration order. A nil registry has
// none.
func (r *Registry) All() []Platform {
	if r == nil {
		return nil
	}
	return r.platforms
}

// Get returns the platform called name, or nil.
func (r *Registry) Get(name string) *Platform {
	for i, p := range r.All() {
		if p.Name == name {
			return &r.platforms[i]
		}
	}
	return nil
}

// ForCluster returns the platform whose private connectivity the cluster
// asks for, or nil (a public cluster).
func (r *Registry) ForCluster(hc *hcplinkv1beta1.HostedCluster) *Platform {
	for i, p := range r.All() {
		if p.Type == hc.Spec.Platform.Type && p.AppliesTo != nil && p.AppliesTo(hc) {
			return &r.platforms[i]
		}
	}
	return nil
}

// ConditionTypes are the private-link condition types of every platform.
func (r *Registry) ConditionTypes() []string {
	var out []string
	for _, p := range r.All() {
		out = append(out, p.ConditionTypes...)
	}
	return out
}

// Names are the platforms' names.
func (r *Registry) Names() []string {
	var out []string
	for _, p := range r.All() {
		out = append(out, p.Name)
	}
	return out
}

// CredentialsState is what the last check of the operator's own
// (management) cloud credentials found.
type CredentialsState string

// Management credentials states.
const (
	// CredentialsValid: the cloud accepted them.
	CredentialsValid CredentialsState = "Valid"
	// CredentialsInvalid: the cloud refused them, or the configuration
	// could not be loaded at all.
	CredentialsInvalid CredentialsState = "Invalid"
	// CredentialsUnknown: not checked yet, or the cloud could not be asked.
	CredentialsUnknown CredentialsState = "Unknown"
)

// Credentials reports the state of the operator's management credentials
// and since when it holds. The HostedCluster controller reads it to decide
// whether the operator's own cleanup may be given up at deletion.
type Credentials interface {
	CredentialsState() (state CredentialsState, since time.Time)
}
