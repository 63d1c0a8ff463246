// Package gcp registers GCP Private Service Connect with the management
// operator's platform registry: the GCPPrivateServiceConnect kind, its
// conditions folded into the HostedCluster, what each finalizer would
// leave behind, and the management-side service attachment controller on
// the operator's own identity in the management cluster's project, region
// and network (configured once, at install). There is no final
// customer-side sweep yet.
//
// This file is the whole glue between the controller and the registry.
package gcp

import (
	"context"
	"fmt"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/operator/gcpprivateserviceconnect"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Name is the --private-platform value of GCP.
const Name = "GCP"

// Platform describes GCP Private Service Connect for an operator with
// opts.
func Platform(opts Options) platform.Platform {
	return platform.Platform{
		Name:      Name,
		Type:      hcplinkv1beta1.GCPPlatform,
		Mechanism: "GCP Private Service Connect",
		IsPrivate: gcpprivateserviceconnect.Served,
		PrivacySetting: func(hc *hcplinkv1beta1.HostedCluster) (string, string) {
			if hc.Spec.Platform.GCP == nil {
				return "spec.platform.gcp.endpointAccess", ""
			}
			return "spec.platform.gcp.endpointAccess", string(hc.Spec.Platform.GCP.EndpointAccess)
		},
		Validate: func(hc *hcplinkv1beta1.HostedCluster, served bool) []platform.Problem {
			return validate(hc, served, opts.Region)
		},
		Check:                func() error { return check(opts) },
		ControlPlaneOperator: controlPlaneOperator,
		Kind:                 "GCPPrivateServiceConnect",
		Resource:             "gcpprivateserviceconnects",
		Prototype:            &hcplinkv1beta1.GCPPrivateServiceConnect{},
		// Both sides, as on AWS and Azure: the operator's attachment and
		// the control-plane operator's whole path.
		ConditionTypes: []string{
			hcplinkv1beta1.GCPServiceAttachmentAvailableCondition,
			hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition,
		},
		// The control-plane operator's check of the cluster's subnet and
		// network, which holds back everything until they are valid.
		SettingsCondition: hcplinkv1beta1.GCPConfigurationValidCondition,
		List:              list,
		// Five minutes, the reference's drift check; the fleet's checks
		// share one listing of attachments.
		DriftDefault: gcpprivateserviceconnect.DefaultDriftInterval,
		// No orphan sweeper on GCP yet: SweepDefault stays zero.
		Setup: func(ctx context.Context, mgr manager.Manager, so platform.SetupOptions) (platform.Started, error) {
			return setup(ctx, mgr, opts, so)
		},
	}
}

// validate refuses a private GCP cluster in another region than the
// operator's: a Private Service Connect endpoint reaches a service
// attachment of its own region only
// (https://cloud.google.com/vpc/docs/about-accessing-vpc-hosted-services-endpoints).
func validate(hc *hcplinkv1beta1.HostedCluster, served bool, region string) []platform.Problem {
	g := hc.Spec.Platform.GCP
	if !served || g == nil || !gcpprivateserviceconnect.Served(hc) || region == "" || g.Region == region {
		return nil
	}
	return []platform.Problem{{Reason: hcplinkv1beta1.PlatformRegionMismatchReason, Message: fmt.Sprintf(
		"spec.platform.gcp.region is %s, but this operator serves GCP Private Service Connect in %s (--gcp-region); a private cluster must be in the operator's region", g.Region, region)}}
}

func list(ctx context.Context, c client.Reader, namespace string, _ *hcplinkv1beta1.HostedCluster) ([]platform.Object, error) {
	items := &hcplinkv1beta1.GCPPrivateServiceConnectList{}
	if err := c.List(ctx, items, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out := make([]platform.Object, 0, len(items.Items))
	for i := range items.Items {
		out = append(out, object(&items.Items[i]))
	}
	return out, nil
}

// setup registers the GCPPrivateServiceConnect controller on the
// management project's clients (one sign-in) and returns the check of
// those credentials.
func setup(ctx context.Context, mgr manager.Manager, given Options, so platform.SetupOptions) (platform.Started, error) {
	o, err := loadOptions(given)
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	clients, err := gcpcloud.NewClients(ctx, o.Cloud)
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	at := gcpcloud.Location{Project: o.Project, Region: o.Region}
	r := &gcpprivateserviceconnect.Reconciler{
		Client:              mgr.GetClient(),
		Cloud:               gcpcloud.NewManagementProviders(clients, at, o.Network, o.Timeouts),
		Network:             o.Network,
		Region:              o.Region,
		NATSubnets:          o.NATSubnets,
		ManagementClusterID: so.ManagementClusterID,
		DriftInterval:       so.DriftInterval,
		Events:              so.Events,
	}
	// Run may be called more than once in a process (the local environment,
	// tests): controller names need not be unique then.
	copts := controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: so.MaxConcurrentReconciles}
	if err := r.SetupWithManager(mgr, copts); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the GCPPrivateServiceConnect controller: %w", err)
	}
	return platform.Started{Identity: TokenCaller(clients, o.Project)}, nil
}
