// Package platform is the management operator's registry of private
// platforms. Each cloud describes, in its own package, everything the
// operator does differently on it:
//
//   - its name (the --private-platform value) and the HostedCluster
//     platform type it serves;
//   - whether a cluster asks for private connectivity on it (IsPrivate,
//     the API type's own test), and which setting says so, for the message
//     that refuses a private cluster on an operator serving another cloud;
//   - its further checks of a cluster's settings (Validate);
//   - what its control-plane operator needs: credentials, variables,
//     volumes, Secrets, and its fields of the HostedControlPlane spec
//     (ControlPlaneOperator, ControlPlaneSpec);
//   - the kind of its private-link objects, the condition types folded from
//     them into the HostedCluster, and how to list them (name, conditions,
//     finalizers, and what cloud resources each finalizer would leak if it
//     were given up);
//   - whether its control-plane operator runs a final customer-side sweep
//     at deletion (and reports it in the HostedControlPlane's
//     CloudCleanupComplete condition);
//   - its drift-check and orphan-sweep defaults, and the operator setup that
//     registers its management-side controllers.
//
// The HostedCluster controller and the operator's setup only read the
// registry, so a new cloud adds a package and one line where the registry
// is assembled (internal/operator/platforms.go), without touching another
// cloud's code.
package platform

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
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
// operator's generic options. A platform's own options (its region, its
// cloud configuration, its placements) are given to its constructor where
// the registry is assembled.
type SetupOptions struct {
	// Log is the operator's logger.
	Log logr.Logger
	// MaxConcurrentReconciles is the worker count of each controller.
	MaxConcurrentReconciles int
	// ManagementClusterID names the management cluster in the cloud (tags),
	// so that management clusters sharing an account never touch each
	// other's resources.
	ManagementClusterID string
	// DriftInterval and SweepInterval are the platform controllers' drift
	// check and orphan sweep intervals: the operator's flags, or the
	// platform's defaults (Platform.DriftDefault, SweepDefault).
	DriftInterval, SweepInterval time.Duration
	// Events tells people what the platform's controllers did; nil tells
	// nothing.
	Events *events.Recorder
}

// Problem is one reason the operator refuses a cluster: a stable reason
// and a plain message saying what to do.
type Problem struct {
	Reason  string
	Message string
}

// Workload is the control-plane operator of one cluster as the
// HostedCluster controller renders it, for a platform to add what the
// operator needs on its cloud (ControlPlaneOperator).
type Workload struct {
	// ServiceAccountAnnotations are the annotations of its ServiceAccount.
	ServiceAccountAnnotations map[string]string
	// PodLabels and PodAnnotations are its pod template's.
	PodLabels, PodAnnotations map[string]string
	// Pod and Container are its pod spec and its one container.
	Pod       *corev1.PodSpec
	Container *corev1.Container
	// Secrets are the Secrets it mounts, by name, type and data; the
	// controller puts them in the control-plane namespace with its labels
	// and annotations, and rolls the pod when their data changes. Each
	// name must be listed in Platform.SecretNames.
	Secrets []*corev1.Secret
}

// TokenExpirationSeconds is the lifetime of a projected service-account
// token the control-plane operator signs in with; the kubelet refreshes it
// at 80%.
const TokenExpirationSeconds = 3600

// Placer chooses, once per cluster and before its control plane exists,
// where the cloud provider puts the cluster's router Services (on Azure:
// one of cloud-provider-azure's load-balancer configurations).
type Placer interface {
	// Place returns the cluster's placement: recorded when one was
	// recorded (it is kept, and counted), else one chosen now, "" when the
	// platform does not place this cluster. A *PlacementRefused error says
	// that no place has room.
	Place(ctx context.Context, hc *hcplinkv1beta1.HostedCluster, recorded string) (string, error)
	// Recorded is the placement the cluster's status records, "" when
	// none; Record records where in it (in memory: the status patch
	// writes it, to StatusField).
	Recorded(hc *hcplinkv1beta1.HostedCluster) string
	Record(hc *hcplinkv1beta1.HostedCluster, where string)
	// StatusField is the JSON name of the HostedCluster status field that
	// records the placement.
	StatusField() string
	// InControlPlane is the placement the cluster's HostedControlPlane was
	// made with, "" when none.
	InControlPlane(hcp *hcplinkv1beta1.HostedControlPlane) string
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
	// Mechanism names its private connectivity for people ("AWS
	// PrivateLink").
	Mechanism string

	// IsPrivate reports whether a cluster of this platform's type asks for
	// private connectivity on it: the API type's test, used everywhere the
	// operator asks.
	IsPrivate func(hc *hcplinkv1beta1.HostedCluster) bool
	// PrivacySetting is the field that makes a cluster private and its
	// value ("spec.platform.aws.endpointAccess", "Private"), for the
	// message that refuses a private cluster on an operator serving
	// another platform.
	PrivacySetting func(hc *hcplinkv1beta1.HostedCluster) (field, value string)
	// Validate checks what the CRD cannot of a cluster of this platform's
	// type; served says whether this platform is the operator's private
	// platform. It returns the problems, most fundamental first; nil: none
	// to check.
	Validate func(hc *hcplinkv1beta1.HostedCluster, served bool) []Problem
	// ValidateNodePool checks what the CRD cannot of a NodePool of this
	// platform's type against its cluster (on the same platform); nil
	// result or hook: valid.
	ValidateNodePool func(np *hcplinkv1beta1.NodePool, hc *hcplinkv1beta1.HostedCluster) *Problem
	// Check refuses the platform's own operator options when it is the
	// operator's private platform (a required option missing); nil: none.
	Check func() error

	// ControlPlaneOperator adds to the control-plane operator of a cluster
	// of this platform's type what it needs on this cloud (credentials,
	// variables, volumes); nil: nothing.
	ControlPlaneOperator func(hc *hcplinkv1beta1.HostedCluster, w *Workload)
	// SecretNames are every Secret ControlPlaneOperator may render: one no
	// longer rendered is deleted (when it is ours), and all are deleted
	// with the control-plane operator.
	SecretNames []string
	// ControlPlaneSpec sets the platform's own fields of the
	// HostedControlPlane spec, from the cluster; nil: none.
	ControlPlaneSpec func(hc *hcplinkv1beta1.HostedCluster, spec *hcplinkv1beta1.HostedControlPlaneSpec)

	// Kind is the kind of its private-link objects, and Resource their
	// resource (plural, lower case) for the control-plane operator's Role.
	Kind, Resource string
	// Prototype is an empty private-link object, for watches.
	Prototype client.Object
	// ConditionTypes are the private-link conditions folded into the
	// HostedCluster.
	ConditionTypes []string
	// SettingsCondition is the HostedControlPlane condition in which its
	// control-plane operator says whether the cloud accepts the cluster's
	// settings; the HostedCluster shows it as it is, and a False one is
	// what Available reports. "": none.
	SettingsCondition string
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

	// DriftDefault is how often the management-side controller checks each
	// private-link object against the cloud when --drift-interval is not
	// given.
	DriftDefault time.Duration
	// SweepDefault is how often its orphan sweeper runs when
	// --sweep-interval is not given; zero: the platform has no sweeper.
	SweepDefault time.Duration
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

// ForType returns the platform serving clusters of type t, or nil.
func (r *Registry) ForType(t hcplinkv1beta1.PlatformType) *Platform {
	for i, p := range r.All() {
		if p.Type == t {
			return &r.platforms[i]
		}
	}
	return nil
}

// ForCluster returns the platform whose private connectivity the cluster
// asks for, or nil (a public cluster).
func (r *Registry) ForCluster(hc *hcplinkv1beta1.HostedCluster) *Platform {
	if p := r.ForType(hc.Spec.Platform.Type); p != nil && p.IsPrivate != nil && p.IsPrivate(hc) {
		return p
	}
	return nil
}

// SettingsConditions are the platforms' SettingsCondition types.
func (r *Registry) SettingsConditions() []string {
	return r.collect(func(p Platform) []string { return []string{p.SettingsCondition} })
}

// Resources are the private-link resources of every platform, in
// registration order.
func (r *Registry) Resources() []string {
	return r.collect(func(p Platform) []string { return []string{p.Resource} })
}

// SecretNames are the Secrets every platform may render for a
// control-plane operator.
func (r *Registry) SecretNames() []string {
	return r.collect(func(p Platform) []string { return p.SecretNames })
}

// collect joins what each platform names, in registration order, leaving
// out empty names.
func (r *Registry) collect(of func(Platform) []string) []string {
	var out []string
	for _, p := range r.All() {
		for _, s := range of(p) {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// DefaultsHelp describes each platform's default of an interval for a
// flag's help ("AWS 10m0s, Azure 5m0s"); platforms without one are left
// out.
func (r *Registry) DefaultsHelp(of func(Platform) time.Duration) string {
	var parts []string
	for _, p := range r.All() {
		if d := of(p); d > 0 {
			parts = append(parts, p.Name+" "+d.String())
		}
	}
	return strings.Join(parts, ", ")
}

// ConditionTypes are the private-link condition types of every platform.
func (r *Registry) ConditionTypes() []string {
	return r.collect(func(p Platform) []string { return p.ConditionTypes })
}

// Names are the platforms' names.
func (r *Registry) Names() []string {
	return r.collect(func(p Platform) []string { return []string{p.Name} })
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
