// Package gcp registers GCP Private Service Connect with the control-plane
// operator's platform registry: the observer of the private router, the
// PSC endpoint controller, the check of the cluster's GCP settings (which
// holds back the router Services until they are valid) and the check of
// the workload identity
// (gcpprivateserviceconnect.Setup), and the router Services' load-balancer
// annotations (internal/cloud/gcp).
package gcp

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/controlplane/gcpprivateserviceconnect"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
)

// Name is the GCP platform's name.
const Name = "GCP"

// Platform describes GCP Private Service Connect on the control-plane
// side.
func Platform() platform.Platform {
	return platform.Platform{
		Name: Name,
		Type: hcplinkv1beta1.GCPPlatform,
		// Five minutes, the reference's drift check; a healthy pass costs
		// three reads (see gcpprivateserviceconnect.DefaultDriftInterval).
		DefaultDriftInterval: gcpprivateserviceconnect.DefaultDriftInterval,
		IsPrivate:            gcpprivateserviceconnect.PrivateConfigured,
		MayCreateRouters:     gcpprivateserviceconnect.MayCreateRouters,
		RouterAnnotations: func(_ *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string {
			return gcpcloud.RouterAnnotations(internal)
		},
		RouterAnnotationKeys: gcpcloud.RouterAnnotationKeys,
		Setup:                setup,
	}
}

// setup registers the GCP controllers. The sign-in is the one given
// (Settings.Cloud, a gcpprivateserviceconnect.CloudFactory), else
// workload identity federation with the token file and endpoints of the
// environment; nothing signs in before a GCP cluster needs it. Setup
// registers the credentials check itself, so none is handed back.
func setup(_ context.Context, mgr manager.Manager, opts platform.SetupOptions) (platform.Started, error) {
	factory, _ := opts.Cloud.(gcpprivateserviceconnect.CloudFactory)
	err := gcpprivateserviceconnect.Setup(mgr, gcpprivateserviceconnect.SetupOptions{
		Cloud: factory, Component: opts.MetricsComponent, DriftInterval: opts.DriftInterval,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles, Events: opts.Events,
	})
	return platform.Started{}, err
}
