// Package platform is the control-plane operator's registry of private
// platforms, the twin of the management operator's (internal/operator/
// platform). Each cloud describes, in its own package, what the
// control-plane operator needs to know about it:
//
//   - its name (the key of its settings: "AWS", "Azure") and the
//     HostedControlPlane platform type it serves;
//   - when a HostedControlPlane is private on it (the only clusters that
//     give the control-plane operator cloud credentials and resources);
//   - its default drift-check interval, with the reason for it;
//   - whether the router Services of a cluster may be created yet;
//   - the setup that registers its controllers and returns its credentials
//     check.
//
// The operator's setup only loops over the registry, so a new cloud adds a
// package and one line where the registry is assembled, without touching
// another cloud's code.
package platform

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/events"
)

// DefaultMaxConcurrentReconciles is each platform's endpoint-controller
// worker count when none is given: two, so that one hung cloud call never
// holds the only worker (a control plane has at most two private-link
// objects: AWS's private-router and kube-apiserver-private).
const DefaultMaxConcurrentReconciles = 2

// Settings are one platform's options, the same shape for every cloud.
type Settings struct {
	// Cloud is the platform's own customer-side configuration when the
	// caller gives one (AWS: *aws.Config; Azure: *azure.Config); nil loads
	// it the platform's standard way (environment, files, workload
	// identity).
	Cloud any
	// DriftInterval is how often a healthy private path is checked against
	// the cloud (jittered); zero means the platform's DefaultDriftInterval.
	DriftInterval time.Duration
	// MaxConcurrentReconciles is the endpoint controller's worker count;
	// zero means DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
}

// SetupOptions are what a platform's setup gets from the operator.
type SetupOptions struct {
	Settings
	// Namespace is the control-plane namespace.
	Namespace string
	// MetricsComponent labels the platform's cloud-call metrics.
	MetricsComponent string
	// Events tells people what the platform's controllers did; nil tells
	// nothing.
	Events *events.Recorder
}

// Started is what a platform's setup hands back to the operator.
type Started struct {
	// Credentials checks the control-plane operator's cloud identity for
	// the HostedControlPlane's ValidCloudCredentials condition; nil: no
	// check.
	Credentials credentials.Checker
}

// Platform describes one private platform on the control-plane side.
type Platform struct {
	// Name is the platform's name ("AWS"), the key of its Settings.
	Name string
	// Type is the HostedControlPlane platform type it serves.
	Type hcplinkv1beta1.PlatformType
	// DefaultDriftInterval is the drift check's interval when the settings
	// give none.
	DefaultDriftInterval time.Duration
	// IsPrivate reports whether hcp asks for a private path on this
	// platform: only then does the platform's code act on it.
	IsPrivate func(hcp *hcplinkv1beta1.HostedControlPlane) bool
	// MayCreateRouters, when set, holds back the creation of the cluster's
	// router Services (for example until the cluster's cloud settings were
	// found valid); nil never holds them.
	MayCreateRouters func(hcp *hcplinkv1beta1.HostedControlPlane) bool
	// RouterAnnotations are the load-balancer annotations of the
	// platform's clusters' router Services, internal or public (public
	// clusters too: their router is on the platform's load balancer).
	RouterAnnotations func(hcp *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string
	// RouterAnnotationKeys are the annotations RouterAnnotations may set.
	RouterAnnotationKeys []string
	// Setup registers the platform's controllers and returns its
	// credentials check. The controllers act only on the platform's
	// clusters and cost nothing otherwise.
	Setup func(ctx context.Context, mgr manager.Manager, opts SetupOptions) (Started, error)
}

// Drift is the drift interval of settings: the one given, else the
// platform's default.
func (p *Platform) Drift(s Settings) time.Duration {
	if s.DriftInterval > 0 {
		return s.DriftInterval
	}
	return p.DefaultDriftInterval
}

// Workers is the endpoint controller's worker count of settings.
func Workers(s Settings) int {
	if s.MaxConcurrentReconciles > 0 {
		return s.MaxConcurrentReconciles
	}
	return DefaultMaxConcurrentReconciles
}

// Registry is the set of platforms the control-plane operator knows, in a
// fixed order.
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

// Names are the platforms' names.
func (r *Registry) Names() []string {
	var out []string
	for _, p := range r.All() {
		out = append(out, p.Name)
	}
	return out
}

// ForControlPlane returns the platform on which hcp is private, or nil (a
// public cluster, or a platform no package serves).
func (r *Registry) ForControlPlane(hcp *hcplinkv1beta1.HostedControlPlane) *Platform {
	if hcp == nil {
		return nil
	}
	for i, p := range r.All() {
		if p.Type == hcp.Spec.Platform.Type && p.IsPrivate != nil && p.IsPrivate(hcp) {
			return &r.platforms[i]
		}
	}
	return nil
}

// RouterAnnotations are the load-balancer annotations of hcp's router
// Service, internal or public, as the platform of hcp's type says; none
// for a type no platform serves.
func (r *Registry) RouterAnnotations(hcp *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string {
	for _, p := range r.All() {
		if p.Type == hcp.Spec.Platform.Type && p.RouterAnnotations != nil {
			return p.RouterAnnotations(hcp, internal)
		}
	}
	return map[string]string{}
}

// RouterAnnotationKeys are the annotations any platform may set on a
// router Service: the routers controller owns them.
func (r *Registry) RouterAnnotationKeys() []string {
	var out []string
	for _, p := range r.All() {
		out = append(out, p.RouterAnnotationKeys...)
	}
	return out
}

// MayCreateRouters is the router controller's gate: false when a platform
// holds back hcp's router Services.
func (r *Registry) MayCreateRouters(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	for _, p := range r.All() {
		if p.MayCreateRouters != nil && !p.MayCreateRouters(hcp) {
			return false
		}
	}
	return true
}

// DriftHelp names each platform's default drift interval, for a flag's
// help ("AWS 10m0s, Azure 5m0s").
func (r *Registry) DriftHelp() string {
	parts := make([]string, 0, len(r.All()))
	for _, p := range r.All() {
		parts = append(parts, fmt.Sprintf("%s %v", p.Name, p.DefaultDriftInterval))
	}
	return strings.Join(parts, ", ")
}
