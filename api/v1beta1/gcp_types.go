package v1beta1

// GCPEndpointAccessType says from where a cluster's API server is reachable.
//
// +kubebuilder:validation:Enum=Public;PublicAndPrivate;Private
type GCPEndpointAccessType string

const (
	// GCPEndpointAccessPublic serves the control plane from the internet
	// only; hcplink builds no private path.
	GCPEndpointAccessPublic GCPEndpointAccessType = "Public"
	// GCPEndpointAccessPublicAndPrivate serves the control plane from the
	// internet and, for workers, through GCP Private Service Connect.
	GCPEndpointAccessPublicAndPrivate GCPEndpointAccessType = "PublicAndPrivate"
	// GCPEndpointAccessPrivate serves the control plane through GCP Private
	// Service Connect only.
	GCPEndpointAccessPrivate GCPEndpointAccessType = "Private"
)

// Formats of GCP names, as the rules below spell them:
//   - project ID: 6 to 30 lowercase letters, digits and hyphens, starting
//     with a letter and not ending with a hyphen
//     (https://cloud.google.com/resource-manager/docs/creating-managing-projects);
//   - network, subnetwork: RFC 1035 names of 1 to 63 characters
//     (https://cloud.google.com/compute/docs/naming-resources);
//   - service account: an account ID of 6 to 30 characters matching
//     [a-z]([-a-z0-9]*[a-z0-9]) (projects.serviceAccounts.create), at
//     <project>.iam.gserviceaccount.com;
//   - workload identity pool and provider IDs: 4 to 32 characters of
//     [a-z0-9-], the prefix gcp- reserved by Google
//     (https://cloud.google.com/iam/docs/reference/rest/v1/projects.locations.workloadIdentityPools.providers/create).

// GCPPlatformSpec is the GCP configuration of a cluster.
//
// +kubebuilder:validation:XValidation:rule="!has(self.endpointAccess) || self.endpointAccess == 'Public' || has(self.network)",message="network is required when endpointAccess is PublicAndPrivate or Private: the Private Service Connect endpoint is created in that VPC network",fieldPath=".network"
// +kubebuilder:validation:XValidation:rule="!has(self.endpointAccess) || self.endpointAccess == 'Public' || has(self.subnet)",message="subnet is required when endpointAccess is PublicAndPrivate or Private: the Private Service Connect endpoint takes its address from that subnet",fieldPath=".subnet"
// +kubebuilder:validation:XValidation:rule="!has(self.endpointAccess) || self.endpointAccess == 'Public' || has(self.workloadIdentity)",message="workloadIdentity is required when endpointAccess is PublicAndPrivate or Private: it is how the control-plane operator signs in to create the Private Service Connect endpoint and private DNS zone",fieldPath=".workloadIdentity"
// +kubebuilder:validation:XValidation:rule="(has(self.endpointAccess) && self.endpointAccess != 'Public') || !has(self.private)",message="private must not be set when endpointAccess is Public",fieldPath=".private"
// +kubebuilder:validation:XValidation:rule="!has(self.private) || !has(self.private.additionalAllowedProjects) || !self.private.additionalAllowedProjects.exists(p, p == self.project)",message="private.additionalAllowedProjects must not list the cluster's own project: the service attachment always accepts it",fieldPath=".private.additionalAllowedProjects"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.network) || (has(self.network) && self.network == oldSelf.network)",message="network is immutable once set",fieldPath=".network"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.subnet) || (has(self.subnet) && self.subnet == oldSelf.subnet)",message="subnet is immutable once set: the Private Service Connect endpoint's address is in it",fieldPath=".subnet"
// +kubebuilder:validation:XValidation:rule="(has(self.private) && has(self.private.natSubnet)) == (has(oldSelf.private) && has(oldSelf.private.natSubnet)) && (!has(self.private) || !has(self.private.natSubnet) || self.private.natSubnet == oldSelf.private.natSubnet)",message="private.natSubnet is immutable: it cannot be added, changed or removed after creation",fieldPath=".private.natSubnet"
type GCPPlatformSpec struct {
	// project is the ID of the GCP project of the cluster's workers, where
	// the Private Service Connect endpoint and the private DNS zone are
	// made: 6 to 30 lowercase letters, digits and hyphens, starting with a
	// letter and not ending with a hyphen, for example my-project-123. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=6
	// +kubebuilder:validation:MaxLength=30
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]$')",message="project must be a GCP project ID: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, such as my-project-123"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="project is immutable"
	Project string `json:"project"`

	// region is the GCP region of the cluster's network, for example
	// us-central1. It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]+-[a-z]+[0-9]+$')",message="region must be a GCP region name such as us-central1 or europe-west4"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region is immutable"
	Region string `json:"region"`

	// network is the name of the VPC network, in project, that the workers
	// live in: the Private Service Connect endpoint is made in it and the
	// private DNS zone is visible to it. Required unless endpointAccess is
	// Public; it cannot change once set.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="network must be a VPC network name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	Network string `json:"network,omitempty"`

	// subnet is the name of the subnet, in network and region, that the
	// Private Service Connect endpoint takes its internal address from.
	// Required unless endpointAccess is Public; it cannot change once set.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="subnet must be a subnet name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	Subnet string `json:"subnet,omitempty"`

	// endpointAccess says from where the control plane is reachable: Public
	// (internet only, the default), PublicAndPrivate (internet, and Private
	// Service Connect for workers) or Private (Private Service Connect
	// only). It can move between PublicAndPrivate and Private; it cannot
	// move between Public and either of the others.
	//
	// +optional
	// +kubebuilder:default=Public
	// +kubebuilder:validation:XValidation:rule="self == oldSelf || (self != 'Public' && oldSelf != 'Public')",message="endpointAccess can change only between PublicAndPrivate and Private; changing between Public and PublicAndPrivate or Private is not supported"
	EndpointAccess GCPEndpointAccessType `json:"endpointAccess,omitempty"`

	// private configures the private path. Optional when endpointAccess is
	// PublicAndPrivate or Private, refused when it is Public.
	//
	// +optional
	Private *GCPPrivateSpec `json:"private,omitempty"`

	// workloadIdentity names how the cluster's components sign in to GCP
	// by workload identity federation. Required unless endpointAccess is
	// Public.
	//
	// +optional
	WorkloadIdentity *GCPWorkloadIdentityConfig `json:"workloadIdentity,omitempty"`
}

// GCPPrivateSpec configures the private path of a GCP cluster.
type GCPPrivateSpec struct {
	// additionalAllowedProjects are GCP projects, besides the cluster's
	// own, whose Private Service Connect endpoints the service attachment
	// accepts (its consumer accept list). Each is a project ID (6 to 30
	// lowercase letters, digits and hyphens, starting with a letter) or a
	// project number. A set of at most 49: the accept list holds at most
	// 50 projects (the reference system's bound; GCP limits the list's
	// size: https://cloud.google.com/vpc/docs/about-controlling-access-published-services),
	// and the cluster's own project is always one, so the list must not
	// name it. It may change at any time.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=49
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=30
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]$') || self.matches('^[1-9][0-9]{0,18}$')",message="additionalAllowedProjects entries must be GCP project IDs (6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen) or project numbers"
	AdditionalAllowedProjects []string `json:"additionalAllowedProjects,omitempty"`

	// natSubnet is the name of a subnet of the management cluster's VPC
	// network, with purpose PRIVATE_SERVICE_CONNECT, that the service
	// attachment takes its NAT addresses from. When it is not set the
	// operator picks one of the management cluster's Private Service
	// Connect subnets. GCP lets a NAT subnet serve only one service
	// attachment (https://cloud.google.com/vpc/docs/about-vpc-hosted-services#nat-subnets).
	// It cannot be added, changed or removed after creation.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="natSubnet must be a subnet name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	NATSubnet string `json:"natSubnet,omitempty"`
}

// GCPWorkloadIdentityConfig names how the cluster's components sign in to
// GCP: each exchanges its ServiceAccount token at Google's Security Token
// Service through poolProvider, then impersonates its Google service
// account.
type GCPWorkloadIdentityConfig struct {
	// poolProvider is the full resource name of the workload identity pool
	// provider that trusts the management cluster's service account issuer:
	// projects/<project number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>.
	// It may change, to move to another provider: the control-plane
	// operator restarts with the new one.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=160
	// +kubebuilder:validation:XValidation:rule="self.matches('^projects/[0-9]+/locations/global/workloadIdentityPools/[a-z0-9-]{4,32}/providers/[a-z0-9-]{4,32}$')",message="poolProvider must be a workload identity pool provider's full resource name: projects/<project number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>, the pool and provider IDs 4 to 32 lowercase letters, digits and hyphens"
	// +kubebuilder:validation:XValidation:rule="!self.matches('/(workloadIdentityPools|providers)/gcp-')",message="poolProvider must not name a pool or provider whose ID starts with gcp-: Google reserves that prefix"
	PoolProvider string `json:"poolProvider"`

	// serviceAccountsEmails are the Google service accounts the components
	// impersonate.
	//
	// +required
	ServiceAccountsEmails GCPServiceAccountsEmails `json:"serviceAccountsEmails"`
}

// GCPServiceAccountsEmails are the Google service accounts of the
// components hcplink runs for a cluster.
type GCPServiceAccountsEmails struct {
	// controlPlaneOperator is the service account the control-plane
	// operator impersonates to reserve the endpoint's address, create the
	// Private Service Connect endpoint, and the private DNS zone and its
	// records in the cluster's project:
	// <account ID>@<project>.iam.gserviceaccount.com. It may change, to
	// rotate the identity: the control-plane operator restarts with the new
	// one.
	//
	// +required
	ControlPlaneOperator GCPServiceAccountEmail `json:"controlPlaneOperator"`
}

// GCPServiceAccountEmail is the email of a user-managed Google service
// account.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=100
// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]@[a-z][-a-z0-9]{4,28}[a-z0-9][.]iam[.]gserviceaccount[.]com$')",message="controlPlaneOperator must be a service account email such as control-plane-operator@my-project-123.iam.gserviceaccount.com"
type GCPServiceAccountEmail string
