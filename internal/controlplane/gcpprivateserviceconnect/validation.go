package gcpprivateserviceconnect

import (
	"context"
	"strings"

	"google.golang.org/api/compute/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ValidatorFieldOwner is the field manager of the validator's condition.
const ValidatorFieldOwner = "hcplink-gcp-validation"

// Validator checks, once per generation of a GCP HostedControlPlane served
// through Private Service Connect, what the control-plane operator's
// service account can see of the cluster's settings
// (GCPConfigurationValid): that its subnet exists in its project and
// region, in its network. Until it is True the router controller gives the
// private router no load balancer (see MayCreateRouters), so invalid
// settings create nothing in either project: no router forwarding rule, no
// service attachment, no address. A False check is rechecked at growing
// intervals (the customer may create what is missing); a True one is not
// repeated until the spec changes. It costs one read per generation.
type Validator struct {
	Client  client.Client
	Cloud   CloudFactory
	Tracker *outcome.Tracker
}

// SetupWithManager registers the validator for HostedControlPlane specs.
func (v *Validator) SetupWithManager(mgr ctrl.Manager) error {
	if v.Client == nil {
		v.Client = mgr.GetClient()
	}
	if v.Tracker == nil {
		v.Tracker = &outcome.Tracker{}
	}
	return reconcilekit.OnControlPlaneSpec(mgr, "gcpvalidation", v)
}

// Reconcile checks the cluster's settings unless this generation was
// found valid already (reconcilekit.SettingsCheck).
func (v *Validator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return reconcilekit.SettingsCheck{Client: v.Client, Tracker: v.Tracker, Condition: hcplinkv1beta1.GCPConfigurationValidCondition, FieldOwner: ValidatorFieldOwner,
		Due: func(hcp *hcplinkv1beta1.HostedControlPlane) bool {
			return PrivateConfigured(hcp) && !ConfigurationValidated(hcp)
		},
		Check: v.check}.Reconcile(ctx, req)
}

// check reads the cluster's subnet as the cluster's identity: one read.
func (v *Validator) check(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane) outcome.Outcome {
	g := hcp.Spec.Platform.GCP
	p, err := v.Cloud.For(IdentityOf(hcp), gcpcloud.Location{Project: g.Project, Region: g.Region})
	if err != nil {
		return signInOutcome(err)
	}
	subnet, err := p.Subnetworks.Get(ctx, g.Subnet)
	if err != nil {
		return outcome.FromError(err)
	}
	return ValidateCustomerSubnet(g, subnet)
}

// ValidateCustomerSubnet is the verdict on a cluster's GCP settings given
// its subnet as read (nil when it does not exist in the project and
// region): Ready when it is in the cluster's network, else a wait on a
// person naming the field to fix.
func ValidateCustomerSubnet(g *hcplinkv1beta1.GCPPlatformSpec, subnet *compute.Subnetwork) outcome.Outcome {
	invalid := func(reason, message string) outcome.Outcome {
		return outcome.WaitOnPerson(reason, message+"; nothing is created for the cluster until it is fixed")
	}
	switch {
	case subnet == nil:
		return invalid(hcplinkv1beta1.GCPSubnetNotFoundReason,
			"Subnet "+g.Subnet+" (spec.platform.gcp.subnet) does not exist in region "+g.Region+" of project "+g.Project+
				", or the control-plane operator's service account cannot see it: create it in network "+g.Network+", or correct the field")
	case lastSegment(subnet.Network) != g.Network:
		return invalid(hcplinkv1beta1.GCPSubnetNotInNetworkReason,
			"Subnet "+g.Subnet+" (spec.platform.gcp.subnet) is in network "+lastSegment(subnet.Network)+", not in network "+g.Network+
				" (spec.platform.gcp.network): the Private Service Connect endpoint takes its address from the subnet and lives in the network, so both must be the same network's; correct one of the fields")
	}
	return outcome.Ready(hcplinkv1beta1.GCPSuccessReason,
		"Subnet "+g.Subnet+" exists in network "+g.Network+" in "+g.Region, 0)
}

// lastSegment is a link's last path segment: a resource's name.
func lastSegment(link string) string { return link[strings.LastIndex(link, "/")+1:] }

// ConfigurationValidated reports whether the cluster's GCP settings were
// found valid for its current generation.
func ConfigurationValidated(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.GCPConfigurationValidCondition)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hcp.Generation
}

// MayCreateRouters is the router controller's gate: a Service that does not
// exist yet is created for a GCP cluster served through Private Service
// Connect only once its settings were found valid (nothing is created for
// invalid input); other clusters are not held.
func MayCreateRouters(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return !PrivateConfigured(hcp) || ConfigurationValidated(hcp)
}
