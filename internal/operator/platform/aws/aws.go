// Package aws registers AWS PrivateLink with the management operator's
// platform registry: which clusters are private on AWS and the checks of
// their settings (validation.go), the control-plane operator's STS web
// identity (controlplane.go), AWSEndpointService objects and their two
// aggregated conditions, the control-plane operator's final customer-side
// sweep, the drift and sweep defaults, and the management-side
// endpoint-service controller and orphan sweeper.
package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/operator/awsendpointservice"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Name is the --private-platform value of AWS.
const Name = "AWS"

// metricsComponent is the component label of the operator's AWS calls.
const metricsComponent = "operator"

// Options are the operator's own AWS options.
type Options struct {
	// Region is the management cluster's region (--aws-private-region):
	// private AWS clusters must be in it, and the operator's clients call
	// it.
	Region string
	// Config is the operator's AWS configuration; nil loads it the
	// standard way (environment, shared files, web identity).
	Config *aws.Config
}

// Platform describes AWS PrivateLink for an operator with opts.
func Platform(opts Options) platform.Platform {
	return platform.Platform{
		Name:      Name,
		Type:      hcplinkv1beta1.AWSPlatform,
		Mechanism: "AWS PrivateLink",
		IsPrivate: isPrivate,
		PrivacySetting: func(hc *hcplinkv1beta1.HostedCluster) (string, string) {
			return "spec.platform.aws.endpointAccess", string(hc.Spec.Platform.AWS.EndpointAccess)
		},
		Validate: func(hc *hcplinkv1beta1.HostedCluster, served bool) []platform.Problem {
			return validate(hc, served, opts.Region)
		},
		Check:                func() error { return check(opts) },
		ControlPlaneOperator: controlPlaneOperator,
		SecretNames:          []string{CredentialsSecretName},
		Kind:                 "AWSEndpointService",
		Resource:             "awsendpointservices",
		Prototype:            &hcplinkv1beta1.AWSEndpointService{},
		ConditionTypes: []string{
			hcplinkv1beta1.AWSEndpointServiceAvailableCondition,
			hcplinkv1beta1.AWSEndpointAvailableCondition,
		},
		List:           list,
		FinalSweep:     true,
		FinalSweepLeak: finalSweepLeak,
		// Ten minutes keeps a fleet within AWS's per-account request rates
		// while a change made behind our back is undone within one interval.
		DriftDefault: intervals.AWSDrift,
		// Orphaned endpoint services are rare (a lost object, a forced
		// finalizer): looking twice an hour is plenty.
		SweepDefault: intervals.AWSEndpointServiceSweep,
		Setup: func(ctx context.Context, mgr manager.Manager, so platform.SetupOptions) (platform.Started, error) {
			return setup(ctx, mgr, opts, so)
		},
	}
}

// isPrivate: the API type's test of privacy on AWS.
func isPrivate(hc *hcplinkv1beta1.HostedCluster) bool {
	return hc.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform && hc.Spec.Platform.AWS.IsPrivate()
}

// check refuses an AWS operator without its region.
func check(opts Options) error {
	if opts.Region == "" {
		return errors.New("the AWS private region is required when the private platform is AWS")
	}
	return nil
}

func list(ctx context.Context, c client.Reader, namespace string, hc *hcplinkv1beta1.HostedCluster) ([]platform.Object, error) {
	items := &hcplinkv1beta1.AWSEndpointServiceList{}
	if err := c.List(ctx, items, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out := make([]platform.Object, 0, len(items.Items))
	for i := range items.Items {
		out = append(out, object(&items.Items[i], hc))
	}
	return out, nil
}

// object is o as the HostedCluster controller sees it: what each
// finalizer would leave behind if given up (the control-plane operator's:
// the customer side; the operator's: the endpoint service).
func object(o *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) platform.Object {
	customer, management := describe(o)
	where := location(o, hc)
	prefix := "AWSEndpointService " + o.Name + " " + where + ": "
	obj := platform.Object{Object: o, Conditions: o.Status.Conditions, Leaks: map[string]string{}}
	if customer != "" {
		obj.Leaks[hcplinkv1beta1.ControlPlaneFinalizer] = prefix + customer
	}
	if management != "" {
		obj.Leaks[hcplinkv1beta1.OperatorFinalizer] = prefix + management
	}
	switch all := strings.Trim(strings.Join([]string{management, customer}, ", "), ", "); all {
	case "":
		obj.Fallback = "AWSEndpointService " + o.Name + " " + where + ": no cloud resource IDs were recorded; look for resources tagged for the cluster"
	default:
		obj.Fallback = prefix + all
	}
	return obj
}

// describe names the cloud resources the object recorded: the customer
// side (the control-plane operator's) and the management side (the
// operator's endpoint service).
func describe(o *hcplinkv1beta1.AWSEndpointService) (customer, management string) {
	st := o.Status
	var parts []string
	add := func(label, value string) {
		if value != "" {
			parts = append(parts, label+" "+value)
		}
	}
	add("VPC endpoint", st.EndpointID)
	add("security group", st.SecurityGroupID)
	if len(st.DNSNames) > 0 {
		records := "DNS records " + strings.Join(st.DNSNames, ", ")
		if st.DNSZoneID != "" {
			records += " in hosted zone " + st.DNSZoneID
		}
		parts = append(parts, records)
	}
	customer = strings.Join(parts, ", ")
	if st.EndpointServiceName != "" {
		management = "endpoint service " + st.EndpointServiceName
	}
	return customer, management
}

// location is the region and the tag that find the object's resources.
func location(o *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) string {
	infraID, region := o.Status.InfraID, o.Status.Region
	if infraID == "" {
		infraID = hc.Spec.InfraID
	}
	if region == "" && hc.Spec.Platform.AWS != nil {
		region = hc.Spec.Platform.AWS.Region
	}
	return fmt.Sprintf("(region %s, tagged %s)", region, hcplinkv1beta1.ClusterTagKey(infraID))
}

// finalSweepLeak says where leftovers of the customer side are, when the
// wait for the control-plane operator's final sweep is given up.
func finalSweepLeak(hc *hcplinkv1beta1.HostedCluster) string {
	region, vpc := "", ""
	if a := hc.Spec.Platform.AWS; a != nil {
		region = a.Region
		if a.CloudProviderConfig != nil {
			vpc = a.CloudProviderConfig.VPC
		}
	}
	return fmt.Sprintf("VPC endpoints and security groups tagged %s=%s and %s in region %s, VPC %s, and the api and *.apps records in %s that point at them",
		hcplinkv1beta1.ClusterTagKey(hc.Spec.InfraID), hcplinkv1beta1.ClusterTagValueOwned, hcplinkv1beta1.EndpointServiceTagKey,
		region, vpc, awscloud.PrivateZoneName(hc.Name))
}

// setup registers the AWSEndpointService controller and the orphan
// sweeper on the management account's clients.
func setup(ctx context.Context, mgr manager.Manager, opts Options, so platform.SetupOptions) (platform.Started, error) {
	cfg, err := loadConfig(ctx, opts)
	if err != nil {
		return platform.Started{}, &platform.ConfigError{Err: err}
	}
	ec2Client, elbClient := ec2.NewFromConfig(cfg), elasticloadbalancingv2.NewFromConfig(cfg)
	r := &awsendpointservice.Reconciler{
		Client:              mgr.GetClient(),
		EC2:                 ec2Client,
		ELB:                 elbClient,
		DriftInterval:       so.DriftInterval,
		ManagementClusterID: so.ManagementClusterID,
		Events:              so.Events,
	}
	// Run may be called more than once in a process (the local environment,
	// tests): controller names need not be unique then.
	copts := controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: so.MaxConcurrentReconciles}
	if err := r.SetupWithManager(mgr, copts); err != nil {
		return platform.Started{}, fmt.Errorf("setting up the AWSEndpointService controller: %w", err)
	}
	sweeper := &awsendpointservice.Sweeper{
		Reader:              mgr.GetAPIReader(),
		EC2:                 ec2Client,
		Cache:               r.Cache,
		Interval:            so.SweepInterval,
		ManagementClusterID: so.ManagementClusterID,
	}
	if err := mgr.Add(sweeper); err != nil {
		return platform.Started{}, fmt.Errorf("adding the endpoint-service sweeper: %w", err)
	}
	return platform.Started{Identity: STSCaller(cfg)}, nil
}

// STSCaller checks the management credentials with GetCallerIdentity; its
// errors are classified (cloud.Error).
func STSCaller(cfg aws.Config) platform.IdentityCaller {
	client := sts.NewFromConfig(cfg)
	return func(ctx context.Context) (string, error) {
		out, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			// Classified here, so that the operator's generic check reads
			// only the shared class.
			return "", awscloud.Wrap("checking the operator's credentials with GetCallerIdentity", err)
		}
		return aws.ToString(out.Arn), nil
	}
}

// loadConfig is the operator's instrumented AWS configuration: the given
// one, or loaded the standard way (environment, shared files, web
// identity).
func loadConfig(ctx context.Context, opts Options) (aws.Config, error) {
	var cfg aws.Config
	if opts.Config != nil {
		cfg = opts.Config.Copy()
	} else {
		loaded, err := awscloud.LoadConfig(ctx, config.WithRegion(opts.Region))
		if err != nil {
			return aws.Config{}, err
		}
		cfg = loaded
	}
	if cfg.Region == "" {
		cfg.Region = opts.Region
	}
	awshttp.Apply(&cfg)
	awscloud.Instrument(&cfg, metricsComponent)
	return cfg, nil
}
