// Package aws registers AWS PrivateLink with the control-plane operator's
// platform registry: the observers of the private load-balancer Services,
// the VPC endpoint controller, the final customer-side sweep, the orphan
// sweeper and the STS credentials check.
package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/controlplane/awsprivatelink"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Name is the AWS platform's name.
const Name = "AWS"

// Platform describes AWS PrivateLink on the control-plane side.
func Platform() platform.Platform {
	return platform.Platform{
		Name: Name,
		Type: hcplinkv1beta1.AWSPlatform,
		// Ten minutes keeps a fleet within AWS's account-wide request
		// rates (see intervals.AWSDrift).
		DefaultDriftInterval: intervals.AWSDrift,
		IsPrivate:            IsPrivate,
		RouterAnnotations: func(_ *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string {
			return awscloud.RouterAnnotations(internal)
		},
		RouterAnnotationKeys: awscloud.RouterAnnotationKeys,
		Setup:                setup,
	}
}

// IsPrivate: an AWS cluster whose endpoint access is PublicAndPrivate or
// Private.
func IsPrivate(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return hcp.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform && hcp.Spec.Platform.IsPrivate()
}

// setup loads the customer-side AWS configuration (the one given, else the
// standard way) and registers the observers, the endpoint controller, the
// final sweep and the sweeper. They act only when the namespace's
// HostedControlPlane is on AWS (the operator knows the platform only once
// the HostedControlPlane is read), and cost nothing otherwise.
func setup(ctx context.Context, mgr manager.Manager, opts platform.SetupOptions) (platform.Started, error) {
	var cfg aws.Config
	if given, _ := opts.Cloud.(*aws.Config); given != nil {
		cfg = given.Copy() // Instrument appends to it; leave the caller's alone
	} else {
		loaded, err := awscloud.LoadConfig(ctx)
		if err != nil {
			return platform.Started{}, err
		}
		cfg = loaded
	}
	awshttp.Apply(&cfg)
	awscloud.Instrument(&cfg, opts.MetricsComponent)
	// Every successful call proves the credentials; the credentials check
	// then needs none of its own.
	proof := &awscloud.LastSuccess{}
	proof.Observe(&cfg)

	for _, name := range []string{hcplinkv1beta1.PrivateRouterServiceName, hcplinkv1beta1.KubeAPIServerPrivateServiceName} {
		if err := (&awsprivatelink.Observer{Client: mgr.GetClient(), ServiceName: name}).SetupWithManager(mgr); err != nil {
			return platform.Started{}, fmt.Errorf("setting up the %s observer: %w", name, err)
		}
	}
	ec2Client, r53Client := ec2.NewFromConfig(cfg), route53.NewFromConfig(cfg)
	tracker := &outcome.Tracker{}
	if err := (&awsprivatelink.Reconciler{Client: mgr.GetClient(), EC2: ec2Client, Route53: r53Client, DriftInterval: opts.DriftInterval,
		Tracker: tracker, MaxConcurrentReconciles: opts.MaxConcurrentReconciles, Events: opts.Events}).SetupWithManager(mgr); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the AWS endpoint controller: %w", err)
	}
	if err := (&awsprivatelink.CleanupReconciler{Client: mgr.GetClient(), EC2: ec2Client, Route53: r53Client, Tracker: tracker}).SetupWithManager(mgr); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the AWS final sweep: %w", err)
	}
	if err := mgr.Add(&awsprivatelink.Sweeper{Client: mgr.GetClient(), EC2: ec2Client, Namespace: opts.Namespace, Events: opts.Events}); err != nil {
		return platform.Started{}, fmt.Errorf("adding the AWS endpoint sweeper: %w", err)
	}
	return platform.Started{Credentials: &CredentialsChecker{AWS: cfg, Proof: proof}}, nil
}
