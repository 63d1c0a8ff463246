package hostedcluster

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

func TestDesiredNamespace(t *testing.T) {
	ns := desiredNamespace(awsCluster("clusters", "my.cluster", hcplinkv1beta1.AWSEndpointAccessPublic))
	if ns.Name != "clusters-my-cluster" {
		t.Errorf("name = %s, want clusters-my-cluster", ns.Name)
	}
	if ns.Labels[ControlPlaneNamespaceLabel] != "true" {
		t.Errorf("labels = %v, want %s=true", ns.Labels, ControlPlaneNamespaceLabel)
	}
	if ns.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/my.cluster" {
		t.Errorf("annotations = %v", ns.Annotations)
	}
}

func TestDesiredHostedControlPlane(t *testing.T) {
	hc := awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	hc.Spec.PausedUntil = ptr.To("true")
	pools := []hcplinkv1beta1.NodePool{
		*awsNodePool("clusters", "zeta", "demo", subnetB),
		*awsNodePool("clusters", "alpha", "demo", subnetA),
		*awsNodePool("clusters", "no-subnet", "demo", ""),
		*awsNodePool("clusters", "other-cluster", "other", subnetC),
		*awsNodePool("elsewhere", "same-name-other-namespace", "demo", subnetC),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: "azure"}, Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: "demo",
			Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: azSubnet}}}},
	}
	hcp := desiredHostedControlPlane(hc, pools, testPlatforms())
	if hcp.Name != "demo" || hcp.Namespace != "clusters-demo" {
		t.Errorf("name = %s/%s, want clusters-demo/demo", hcp.Namespace, hcp.Name)
	}
	if hcp.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/demo" {
		t.Errorf("annotations = %v", hcp.Annotations)
	}
	want := []hcplinkv1beta1.HostedControlPlaneNodePool{
		{Name: "alpha", SubnetID: subnetA}, {Name: "azure", SubnetID: azSubnet}, {Name: "no-subnet"}, {Name: "zeta", SubnetID: subnetB},
	}
	if !reflect.DeepEqual(hcp.Spec.NodePools, want) {
		t.Errorf("nodePools = %+v, want %+v", hcp.Spec.NodePools, want)
	}
	s := hcp.Spec
	if s.InfraID != hc.Spec.InfraID || s.ClusterID != hc.Spec.ClusterID || *s.PausedUntil != "true" ||
		!reflect.DeepEqual(s.DNS, hc.Spec.DNS) || !reflect.DeepEqual(s.Networking, hc.Spec.Networking) ||
		!reflect.DeepEqual(s.Services, hc.Spec.Services) || !reflect.DeepEqual(s.Platform, hc.Spec.Platform) {
		t.Errorf("spec does not mirror the cluster: %+v", s)
	}
	// A deep copy: changing the cluster afterwards does not change it.
	hc.Spec.Platform.AWS.ResourceTags[0].Value = "changed"
	if s.Platform.AWS.ResourceTags[0].Value == "changed" {
		t.Error("the HostedControlPlane shares memory with the HostedCluster")
	}
}

func TestDesiredRole(t *testing.T) {
	role := desiredRole(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), testPlatforms())
	if role.Namespace != "clusters-demo" || role.Name != ControlPlaneOperatorName {
		t.Fatalf("role is %s/%s", role.Namespace, role.Name)
	}
	common := []struct {
		group, resource, verb string
		allowed               bool
	}{
		{"", "services", "create", true},
		{"", "services", "delete", true},
		{"", "services/status", "update", true},
		{"", "endpoints", "list", true},
		{"", "endpoints", "create", false},
		{"", "secrets", "get", true},
		{"", "secrets", "list", true},
		{"", "secrets", "create", false},
		{"", "secrets", "update", false},
		{"", "secrets", "delete", false},
		{"", "configmaps", "update", true},
		{"", "events", "create", true},
		{"events.k8s.io", "events", "create", true},
		{"coordination.k8s.io", "leases", "update", true},
		{"hcplink.io", "hostedcontrolplanes", "watch", true},
		{"hcplink.io", "hostedcontrolplanes", "update", false},
		{"hcplink.io", "hostedcontrolplanes", "delete", false},
		{"hcplink.io", "hostedcontrolplanes/status", "update", true},
		{"hcplink.io", "hostedclusters", "get", false},
		{"hcplink.io", "nodepools", "list", false},
		{"", "pods", "get", false},
		{"", "namespaces", "get", false},
		{"rbac.authorization.k8s.io", "roles", "get", false},
		{"apps", "deployments", "get", false},
	}
	for _, tt := range common {
		if got := allows(role, tt.group, tt.resource, tt.verb); got != tt.allowed {
			t.Errorf("%s %s.%s allowed = %v, want %v", tt.verb, tt.resource, tt.group, got, tt.allowed)
		}
	}
	for _, r := range role.Rules {
		for _, v := range append(append(r.Verbs, r.Resources...), r.APIGroups...) {
			if v == "*" {
				t.Errorf("rule %+v uses a wildcard", r)
			}
		}
	}
	rb := desiredRoleBinding(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate))
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ControlPlaneOperatorName}) ||
		!reflect.DeepEqual(rb.Subjects, []rbacv1.Subject{{Kind: "ServiceAccount", Name: ControlPlaneOperatorName, Namespace: "clusters-demo"}}) {
		t.Errorf("role binding = %+v %+v", rb.RoleRef, rb.Subjects)
	}
}

// allows reports whether role lets verb be done on resource of group.
func allows(role *rbacv1.Role, group, resource, verb string) bool {
	for _, r := range role.Rules {
		if contains(r.APIGroups, group) && contains(r.Resources, resource) && contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestDesiredRoleGrantsOnlyItsPlatform: each cluster's control-plane
// operator may manage its own platform's private-link objects and no
// other cloud's; a platform the registry does not serve gets the common
// rules only.
func TestDesiredRoleGrantsOnlyItsPlatform(t *testing.T) {
	resources := []string{"awsendpointservices", "azureprivatelinkservices", "gcpprivateserviceconnects"}
	common := len(desiredRole(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic), platform.New()).Rules)
	for _, tt := range []struct {
		name      string
		hc        *hcplinkv1beta1.HostedCluster
		platforms *platform.Registry
		own       string // "": none
	}{
		{"private AWS", awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate), testPlatforms(), "awsendpointservices"},
		{"public AWS", awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic), testPlatforms(), "awsendpointservices"},
		{"private Azure", azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPrivate), testPlatforms(), "azureprivatelinkservices"},
		{"private GCP", gcpCluster(hcplinkv1beta1.GCPEndpointAccessPrivate), testPlatforms(), "gcpprivateserviceconnects"},
		{"GCP on a registry without GCP", gcpCluster(hcplinkv1beta1.GCPEndpointAccessPrivate), withoutGCP(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			role := desiredRole(tt.hc, tt.platforms)
			for _, resource := range resources {
				want := resource == tt.own
				for _, check := range []struct{ resource, verb string }{
					{resource, "create"}, {resource, "delete"}, {resource, "deletecollection"}, {resource, "watch"},
					{resource + "/status", "update"}, {resource + "/finalizers", "update"},
				} {
					if got := allows(role, hcplinkv1beta1.GroupName, check.resource, check.verb); got != want {
						t.Errorf("%s %s allowed = %v, want %v", check.verb, check.resource, got, want)
					}
				}
			}
			wantRules := common
			if tt.own != "" {
				wantRules += 3
			}
			if len(role.Rules) != wantRules {
				t.Errorf("%d rules, want %d: %+v", len(role.Rules), wantRules, role.Rules)
			}
			if again := desiredRole(tt.hc, tt.platforms); !reflect.DeepEqual(again.Rules, role.Rules) {
				t.Errorf("rendered twice, the rules differ: %+v and %+v", role.Rules, again.Rules)
			}
		})
	}
}

func TestDesiredAWSCredentialsSecret(t *testing.T) {
	tests := []struct {
		name string
		hc   *hcplinkv1beta1.HostedCluster
		want string // "" means no Secret
	}{
		{name: "private AWS cluster", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate),
			want: "[default]\nrole_arn = " + testRoleARN + "\nweb_identity_token_file = /var/run/secrets/hcplink/serviceaccount/token\nregion = us-east-1\n"},
		{name: "public AWS cluster with a role", hc: func() *hcplinkv1beta1.HostedCluster {
			hc := withRegion(awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic), "eu-west-1")
			hc.Spec.Platform.AWS.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/r"}
			return hc
		}(), want: "[default]\nrole_arn = arn:aws:iam::222222222222:role/r\nweb_identity_token_file = /var/run/secrets/hcplink/serviceaccount/token\nregion = eu-west-1\n"},
		{name: "public AWS cluster without a role", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic)},
		{name: "Azure cluster", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPrivate)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secrets := desiredSecrets(tt.hc, withPlatforms(Config{}))
			if tt.want == "" {
				if len(secrets) != 0 {
					t.Fatalf("got Secrets %+v, want none", secrets)
				}
				return
			}
			if len(secrets) != 1 {
				t.Fatalf("got Secrets %+v, want one", secrets)
			}
			s := secrets[0]
			if s.Name != awsplatform.CredentialsSecretName || s.Namespace != "clusters-demo" || s.Type != corev1.SecretTypeOpaque {
				t.Errorf("secret %s/%s of type %s", s.Namespace, s.Name, s.Type)
			}
			if len(s.Data) != 1 || string(s.Data[awsplatform.CredentialsKey]) != tt.want {
				t.Errorf("data = %q, want %q under %q", s.Data, tt.want, awsplatform.CredentialsKey)
			}
			if s.Labels[ManagedByLabel] != ManagedByValue || s.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/demo" {
				t.Errorf("metadata = %v %v", s.Labels, s.Annotations)
			}
		})
	}
}

func TestDesiredDeployment(t *testing.T) {
	envOf := func(c corev1.Container) map[string]string {
		m := map[string]string{}
		for _, e := range c.Env {
			m[e.Name] = e.Value
		}
		return m
	}
	tests := []struct {
		name        string
		hc          *hcplinkv1beta1.HostedCluster
		env         map[string]string
		credentials bool
	}{
		{name: "private AWS: credentials and token mounted", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate),
			env: map[string]string{"AWS_REGION": "us-east-1", "AWS_SHARED_CREDENTIALS_FILE": "/etc/hcplink/aws/credentials"}, credentials: true},
		{name: "public AWS without a role: region only", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPublic),
			env: map[string]string{"AWS_REGION": "us-east-1"}},
		{name: "public Azure without an identity: nothing", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPublic), env: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := desiredDeployment(tt.hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage}))
			if d.Name != ControlPlaneOperatorName || d.Namespace != "clusters-demo" {
				t.Errorf("deployment %s/%s", d.Namespace, d.Name)
			}
			for k, v := range map[string]string{NameLabel: ControlPlaneOperatorName, ManagedByLabel: ManagedByValue} {
				if d.Labels[k] != v || d.Spec.Template.Labels[k] != v {
					t.Errorf("label %s missing: %v / %v", k, d.Labels, d.Spec.Template.Labels)
				}
			}
			if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
				t.Errorf("replicas %d, strategy %s", *d.Spec.Replicas, d.Spec.Strategy.Type)
			}
			pod := d.Spec.Template.Spec
			if pod.ServiceAccountName != ControlPlaneOperatorName || len(pod.Containers) != 1 {
				t.Fatalf("pod spec: %+v", pod)
			}
			c := pod.Containers[0]
			if c.Name != ControlPlaneOperatorName || c.Image != testImage ||
				!reflect.DeepEqual(c.Args, []string{"control-plane-operator", "--namespace", "clusters-demo", "--platform", string(tt.hc.Spec.Platform.Type)}) {
				t.Errorf("container %s image %s args %v", c.Name, c.Image, c.Args)
			}
			if got := envOf(c); !reflect.DeepEqual(got, tt.env) {
				t.Errorf("env = %v, want %v", got, tt.env)
			}
			if !tt.credentials {
				if len(pod.Volumes) != 0 || len(c.VolumeMounts) != 0 {
					t.Errorf("volumes %+v mounts %+v, want none", pod.Volumes, c.VolumeMounts)
				}
				return
			}
			wantMounts := []corev1.VolumeMount{
				{Name: "aws-credentials", MountPath: "/etc/hcplink/aws", ReadOnly: true},
				{Name: "serviceaccount-token", MountPath: "/var/run/secrets/hcplink/serviceaccount", ReadOnly: true},
			}
			if !reflect.DeepEqual(c.VolumeMounts, wantMounts) {
				t.Errorf("mounts = %+v, want %+v", c.VolumeMounts, wantMounts)
			}
			if len(pod.Volumes) != 2 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != awsplatform.CredentialsSecretName {
				t.Fatalf("volumes = %+v", pod.Volumes)
			}
			proj := pod.Volumes[1].Projected
			if proj == nil || len(proj.Sources) != 1 || proj.Sources[0].ServiceAccountToken == nil {
				t.Fatalf("token volume = %+v", pod.Volumes[1])
			}
			if tok := proj.Sources[0].ServiceAccountToken; tok.Audience != "sts.amazonaws.com" || tok.Path != "token" {
				t.Errorf("token projection = %+v", tok)
			}
			if d.Spec.Template.Annotations[credentialsHashAnnotation] == "" {
				t.Error("the pod template does not carry the credentials hash")
			}
		})
	}

	// The spec hash follows the spec: image and credentials changes show.
	hc := awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	a := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage}))
	if b := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage})); a.Annotations[specHashAnnotation] != b.Annotations[specHashAnnotation] {
		t.Error("the spec hash is not stable")
	}
	if b := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage + "2"})); a.Annotations[specHashAnnotation] == b.Annotations[specHashAnnotation] {
		t.Error("an image change does not change the spec hash")
	}
	hc.Spec.Platform.AWS.RolesRef.ControlPlaneOperatorARN = "arn:aws:iam::222222222222:role/other"
	if b := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage})); a.Annotations[specHashAnnotation] == b.Annotations[specHashAnnotation] {
		t.Error("a credentials change does not change the spec hash (the pod would not restart)")
	}
}

// TestDesiredAzureWorkloadIdentity: an Azure cluster's control-plane
// operator gets everything workload identity needs without the webhook
// (variables, projected token) and what the webhook reads (label,
// ServiceAccount annotations), with the authority host of the operator's
// cloud; nothing without an identity.
func TestDesiredAzureWorkloadIdentity(t *testing.T) {
	withIdentity := func(topology hcplinkv1beta1.AzureTopology) *hcplinkv1beta1.HostedCluster {
		hc := azureCluster("clusters", "demo", topology)
		hc.Spec.Platform.Azure.TenantID = azTenant
		hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcplinkv1beta1.WorkloadIdentitiesConfig(azClientID)
		return hc
	}
	tests := []struct {
		name      string
		hc        *hcplinkv1beta1.HostedCluster
		authority string
		// wantAuthority "" expects no workload identity at all.
		wantAuthority string
	}{
		{name: "private, public cloud by default", hc: withIdentity(hcplinkv1beta1.AzureTopologyPrivate), wantAuthority: "https://login.microsoftonline.com/"},
		{name: "PublicAndPrivate, sovereign cloud", hc: withIdentity(hcplinkv1beta1.AzureTopologyPublicAndPrivate),
			authority: "https://login.microsoftonline.us/", wantAuthority: "https://login.microsoftonline.us/"},
		{name: "public with an identity", hc: withIdentity(hcplinkv1beta1.AzureTopologyPublic), wantAuthority: "https://login.microsoftonline.com/"},
		{name: "public without an identity", hc: azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPublic)},
		{name: "tenant without a client ID", hc: func() *hcplinkv1beta1.HostedCluster {
			hc := azureCluster("clusters", "demo", hcplinkv1beta1.AzureTopologyPublic)
			hc.Spec.Platform.Azure.TenantID = azTenant
			return hc
		}()},
		{name: "AWS", hc: awsCluster("clusters", "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(azurecloud.EnvAuthorityHost, "")
			cfg := Config{ControlPlaneOperatorImage: testImage, Platforms: platformsWith(testRegion, tt.authority)}
			d := desiredDeployment(tt.hc, cfg)
			sa := desiredServiceAccount(tt.hc, cfg)
			pod := d.Spec.Template.Spec
			c := pod.Containers[0]
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			var volume *corev1.Volume
			for i := range pod.Volumes {
				if pod.Volumes[i].Name == azureplatform.TokenVolume {
					volume = &pod.Volumes[i]
				}
			}
			if tt.wantAuthority == "" {
				if volume != nil || env["AZURE_CLIENT_ID"] != "" || d.Spec.Template.Labels[azureplatform.WorkloadIdentityUseLabel] != "" || sa.Annotations[azureplatform.ClientIDAnnotation] != "" {
					t.Errorf("workload identity rendered without an identity: env %v, label %v, volume %+v, ServiceAccount %v",
						env, d.Spec.Template.Labels, volume, sa.Annotations)
				}
				return
			}
			wantEnv := map[string]string{
				"AZURE_CLIENT_ID": azClientID, "AZURE_TENANT_ID": azTenant,
				"AZURE_FEDERATED_TOKEN_FILE": "/var/run/secrets/azure/tokens/azure-identity-token",
				"AZURE_AUTHORITY_HOST":       tt.wantAuthority,
			}
			if !reflect.DeepEqual(env, wantEnv) {
				t.Errorf("env = %v, want %v", env, wantEnv)
			}
			if got := d.Spec.Template.Labels[azureplatform.WorkloadIdentityUseLabel]; got != "true" {
				t.Errorf("pod label %s = %q, want true (the webhook mutates only labelled pods)", azureplatform.WorkloadIdentityUseLabel, got)
			}
			if d.Spec.Selector.MatchLabels[azureplatform.WorkloadIdentityUseLabel] != "" {
				t.Error("the selector must not carry the webhook's label: a Deployment's selector is immutable")
			}
			if sa.Annotations[azureplatform.ClientIDAnnotation] != azClientID || sa.Annotations[azureplatform.TenantIDAnnotation] != azTenant {
				t.Errorf("ServiceAccount annotations = %v", sa.Annotations)
			}
			if volume == nil || volume.Projected == nil || len(volume.Projected.Sources) != 1 || volume.Projected.Sources[0].ServiceAccountToken == nil {
				t.Fatalf("token volume = %+v", volume)
			}
			tok := volume.Projected.Sources[0].ServiceAccountToken
			if tok.Audience != "api://AzureADTokenExchange" || tok.Path != "azure-identity-token" || tok.ExpirationSeconds == nil || *tok.ExpirationSeconds != 3600 {
				t.Errorf("token projection = %+v", tok)
			}
			wantMount := corev1.VolumeMount{Name: azureplatform.TokenVolume, MountPath: "/var/run/secrets/azure/tokens", ReadOnly: true}
			if !reflect.DeepEqual(c.VolumeMounts, []corev1.VolumeMount{wantMount}) {
				t.Errorf("mounts = %+v, want %+v", c.VolumeMounts, wantMount)
			}
		})
	}

	// Rotating the client ID changes the spec hash, so the pod restarts
	// with the new identity.
	hc := withIdentity(hcplinkv1beta1.AzureTopologyPrivate)
	a := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage}))
	hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcplinkv1beta1.WorkloadIdentitiesConfig("4b0b6be3-5c2f-4d9f-8e2f-1f3c7d8e9fa0")
	if b := desiredDeployment(hc, withPlatforms(Config{ControlPlaneOperatorImage: testImage})); a.Annotations[specHashAnnotation] == b.Annotations[specHashAnnotation] {
		t.Error("a new client ID does not change the spec hash (the pod would keep the old identity)")
	}
}

// A GCP cluster that names its workload identity gets a control-plane
// operator with its ServiceAccount's token projected for the pool
// provider's audience, where its sign-in reads it; no key, no other
// identity. A new pool provider rolls the pod.
func TestDesiredDeploymentGCPWorkloadIdentity(t *testing.T) {
	const pool = "projects/200000000002/locations/global/workloadIdentityPools/hcplink/providers/control-plane"
	withIdentity := func(access hcplinkv1beta1.GCPEndpointAccessType) *hcplinkv1beta1.HostedCluster {
		hc := gcpCluster(access)
		hc.Spec.Platform.GCP.WorkloadIdentity = &hcplinkv1beta1.GCPWorkloadIdentityConfig{PoolProvider: pool,
			ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@customer-project.iam.gserviceaccount.com"}}
		return hc
	}
	cfg := withPlatforms(Config{ControlPlaneOperatorImage: testImage})
	for _, tt := range []struct {
		name string
		hc   *hcplinkv1beta1.HostedCluster
		want bool
	}{
		{"Private", withIdentity(hcplinkv1beta1.GCPEndpointAccessPrivate), true},
		{"PublicAndPrivate", withIdentity(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate), true},
		{"Public without an identity", gcpCluster(hcplinkv1beta1.GCPEndpointAccessPublic), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := desiredDeployment(tt.hc, cfg).Spec.Template.Spec
			c := pod.Containers[0]
			var volume *corev1.Volume
			for i := range pod.Volumes {
				if pod.Volumes[i].Name == gcpplatform.TokenVolume {
					volume = &pod.Volumes[i]
				}
			}
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			if !tt.want {
				if volume != nil || env["HCPLINK_GCP_TOKEN_FILE"] != "" {
					t.Errorf("a token rendered without an identity: env %v, volume %+v", env, volume)
				}
				return
			}
			if want := map[string]string{"HCPLINK_GCP_TOKEN_FILE": "/var/run/secrets/hcplink/gcp/token"}; !reflect.DeepEqual(env, want) {
				t.Errorf("env = %v, want %v", env, want)
			}
			if volume == nil || volume.Projected == nil || len(volume.Projected.Sources) != 1 || volume.Projected.Sources[0].ServiceAccountToken == nil {
				t.Fatalf("token volume = %+v", volume)
			}
			tok := volume.Projected.Sources[0].ServiceAccountToken
			if tok.Audience != "https://iam.googleapis.com/"+pool || tok.Path != "token" || tok.ExpirationSeconds == nil || *tok.ExpirationSeconds != 3600 {
				t.Errorf("token projection = %+v", tok)
			}
			wantMount := corev1.VolumeMount{Name: gcpplatform.TokenVolume, MountPath: "/var/run/secrets/hcplink/gcp", ReadOnly: true}
			if !reflect.DeepEqual(c.VolumeMounts, []corev1.VolumeMount{wantMount}) {
				t.Errorf("mounts = %+v, want %+v", c.VolumeMounts, wantMount)
			}
		})
	}

	hc := withIdentity(hcplinkv1beta1.GCPEndpointAccessPrivate)
	a := desiredDeployment(hc, cfg)
	hc.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = "projects/200000000002/locations/global/workloadIdentityPools/hcplink/providers/rotated"
	if b := desiredDeployment(hc, cfg); a.Annotations[specHashAnnotation] == b.Annotations[specHashAnnotation] {
		t.Error("a new pool provider does not change the spec hash (the pod would keep a token of the old audience)")
	}
}
